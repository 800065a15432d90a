import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `accounts` operation group as a Worker of its own: wrangler.toml [env.accounts]. */
export default createWorkerApp([group], { title: "Herald API: accounts" });

import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `admin` operation group as a Worker of its own: wrangler.toml [env.admin]. */
export default createWorkerApp([group], { title: "Herald API: admin" });

import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `auth` operation group as a Worker of its own: wrangler.toml [env.auth]. */
export default createWorkerApp([group], { title: "Herald API: auth" });

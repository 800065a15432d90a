import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `billing` operation group as a Worker of its own: wrangler.toml [env.billing]. */
export default createWorkerApp([group], { title: "Herald API: billing" });

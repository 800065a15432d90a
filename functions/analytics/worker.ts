import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `analytics` operation group as a Worker of its own: wrangler.toml [env.analytics]. */
export default createWorkerApp([group], { title: "Herald API: analytics" });

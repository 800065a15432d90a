import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `repost-automation` operation group as a Worker of its own: wrangler.toml [env.repost-automation]. */
export default createWorkerApp([group], { title: "Herald API: repost-automation" });

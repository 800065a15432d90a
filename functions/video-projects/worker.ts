import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `video-projects` operation group as a Worker of its own: wrangler.toml [env.video-projects]. */
export default createWorkerApp([group], { title: "Herald API: video-projects" });

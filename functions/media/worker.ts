import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `media` operation group as a Worker of its own: wrangler.toml [env.media]. */
export default createWorkerApp([group], { title: "Herald API: media" });

import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `voice-profiles` operation group as a Worker of its own: wrangler.toml [env.voice-profiles]. */
export default createWorkerApp([group], { title: "Herald API: voice-profiles" });

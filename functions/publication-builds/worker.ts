import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `publication-builds` operation group as a Worker of its own: wrangler.toml [env.publication-builds]. */
export default createWorkerApp([group], { title: "Herald API: publication-builds" });

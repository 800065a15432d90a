import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `publications` operation group as a Worker of its own: wrangler.toml [env.publications]. */
export default createWorkerApp([group], { title: "Herald API: publications" });

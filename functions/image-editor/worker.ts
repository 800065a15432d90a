import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `image-editor` operation group as a Worker of its own: wrangler.toml [env.image-editor]. */
export default createWorkerApp([group], { title: "Herald API: image-editor" });

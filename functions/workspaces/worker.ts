import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `workspaces` operation group as a Worker of its own: wrangler.toml [env.workspaces]. */
export default createWorkerApp([group], { title: "Herald API: workspaces" });

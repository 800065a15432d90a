import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The `onboarding` operation group as a Worker of its own: wrangler.toml [env.onboarding]. */
export default createWorkerApp([group], { title: "Herald API: onboarding" });

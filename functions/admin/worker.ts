import { createWorkerApp } from "../../lib/http/app";
import { queueAnswers } from "../../lib/jobs/queue-probe";
import group from "./index";

/** The `admin` operation group as a Worker of its own: wrangler.toml [env.admin]. It sends jobs, so /healthz checks SQS too. */
export default createWorkerApp([group], { title: "Herald API: admin", queueProbe: queueAnswers });

import { createWorkerApp } from "../../lib/http/app";
import { queueAnswers } from "../../lib/jobs/queue-probe";
import group from "./index";

/** The `analytics` operation group as a Worker of its own: wrangler.toml [env.analytics]. It sends jobs, so /healthz checks SQS too. */
export default createWorkerApp([group], { title: "Herald API: analytics", queueProbe: queueAnswers });

import { createWorkerApp } from "../../lib/http/app";
import { queueAnswers } from "../../lib/jobs/queue-probe";
import group from "./index";

/** The `webhook-endpoints` operation group as a Worker of its own: wrangler.toml [env.webhook-endpoints]. It sends jobs (redelivery), so /healthz checks SQS too. */
export default createWorkerApp([group], { title: "Herald API: webhook-endpoints", queueProbe: queueAnswers });

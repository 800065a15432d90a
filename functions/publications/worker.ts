import { createWorkerApp } from "../../lib/http/app";
import { queueAnswers } from "../../lib/jobs/queue-probe";
import group from "./index";

/** The `publications` operation group as a Worker of its own: wrangler.toml [env.publications]. It sends jobs, so /healthz checks SQS too. */
export default createWorkerApp([group], { title: "Herald API: publications", queueProbe: queueAnswers });

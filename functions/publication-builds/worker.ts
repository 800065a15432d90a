import { createWorkerApp } from "../../lib/http/app";
import { queueAnswers } from "../../lib/jobs/queue-probe";
import group from "./index";

/** The `publication-builds` operation group as a Worker of its own: wrangler.toml [env.publication-builds]. It sends jobs, so /healthz checks SQS too. */
export default createWorkerApp([group], { title: "Herald API: publication-builds", queueProbe: queueAnswers });

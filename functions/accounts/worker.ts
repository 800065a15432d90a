import { createWorkerApp } from "../../lib/http/app";
import { queueAnswers } from "../../lib/jobs/queue-probe";
import group from "./index";

/** The `accounts` operation group as a Worker of its own: wrangler.toml [env.accounts]. It sends jobs, so /healthz checks SQS too. */
export default createWorkerApp([group], { title: "Herald API: accounts", queueProbe: queueAnswers });

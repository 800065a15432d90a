import { createWorkerApp } from "../lib/http/app";
import { queueAnswers } from "../lib/jobs/queue-probe";
import { API_INFO } from "./api-info";
import { GROUPS } from "./groups";

/**
 * Every group in one app, called in-process by the tests and benchmarks (and run inside workerd by
 * test/workerd/). Deployed, each group is a Worker of its own behind the gateway (functions/gateway.ts).
 * Some groups send jobs, so its /healthz checks SQS too.
 */
export default createWorkerApp(Object.values(GROUPS), { ...API_INFO, queueProbe: queueAnswers });

import { createWorkerApp } from "../lib/http/app";
import { queueAnswers } from "../lib/jobs/queue-probe";
import { API_INFO } from "./api-info";
import { GROUPS } from "./groups";
import { serveOperationsInProcess } from "./mcp/in-process";

/**
 * Every group in one app, called in-process by the tests and benchmarks (and run inside workerd by
 * test/workerd/). Deployed, each group is a Worker of its own behind the gateway (functions/gateway.ts).
 * Some groups send jobs, so its /healthz checks SQS too.
 */
const app = createWorkerApp(Object.values(GROUPS), { ...API_INFO, queueProbe: queueAnswers });
// The MCP tools call the operations they wrap through this app: every group is here, no service binding needed.
serveOperationsInProcess(app.fetch);

export default app;

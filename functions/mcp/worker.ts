import { createWorkerApp } from "../../lib/http/app";
import { queueAnswers } from "../../lib/jobs/queue-probe";
import group from "./index";

/**
 * The `mcp` operation group as a Worker of its own: wrangler.toml [env.mcp]. Its tools reach the other groups through
 * GROUP_* service bindings; it bundles the wrapped operations' route files for their schemas, and with them the
 * outbox's sender, so /healthz checks SQS too (test/import-graph.test.ts).
 */
export default createWorkerApp([group], { title: "Herald API: mcp", queueProbe: queueAnswers });

import { createWorkerApp } from "../lib/http/app";
import { GROUPS } from "./groups";

/**
 * Every group in one app, called in-process by the tests and benchmarks (and run inside workerd by
 * test/workerd/). Deployed, each group is a Worker of its own behind the gateway (functions/gateway.ts).
 */
const app = createWorkerApp(Object.values(GROUPS), {
  title: "Herald API",
  description: "Multi-workspace social publishing. Errors are RFC 9457 problem+json; every response names its JSON Schema in `$schema`.",
});

export default app;

import { createWorkerApp } from "../lib/http/app";
import { API_INFO } from "./api-info";
import { GROUPS } from "./groups";

/**
 * Every group in one app, called in-process by the tests and benchmarks (and run inside workerd by
 * test/workerd/). Deployed, each group is a Worker of its own behind the gateway (functions/gateway.ts).
 */
export default createWorkerApp(Object.values(GROUPS), API_INFO);

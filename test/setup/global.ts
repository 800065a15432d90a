import type { TestProject } from "vitest/node";
import { startEphemeralStack } from "../../local/services/ephemeral-stack";

/**
 * The real parts every test runs against (embedded Postgres, the Neon WebSocket relay, a local SQS
 * with dead-letter queues), started once per run and shared with every project through provide().
 */
export default async function setup(project: TestProject) {
  const stack = await startEphemeralStack();
  // Every 2xx answer of the suite is checked against its route's declared schema (lib/http/response-check.ts).
  project.provide("env", { ...stack.env, CHECK_RESPONSES: "1" });
  project.provide("sqsPort", stack.sqsPort);
  return () => stack.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    env: Record<string, string>;
    sqsPort: number;
  }
}

import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import type { Env } from "../env";
import { withTimeout } from "../timeout";
import { JOB_KINDS, queueUrlVar, type JobKind } from "./kinds";
import { sqsClient } from "./sqs";

/**
 * /healthz's queue check: does SQS answer for the first job kind this Worker has a queue URL for? Only the
 * entries of Workers that send jobs pass it to createWorkerApp (test/import-graph.test.ts keeps that in step
 * with which bundles hold the outbox's sender), so a Worker that sends nothing does not bundle the AWS SDK
 * for its health check.
 */
export async function queueAnswers(env: Env): Promise<boolean> {
  const kind = (Object.keys(JOB_KINDS) as JobKind[]).find((k) => env[queueUrlVar(k)]);
  if (!kind) return true; // no queue configured: nothing to check
  const sqs = sqsClient(env);
  try {
    await withTimeout(sqs.send(new GetQueueAttributesCommand({ QueueUrl: env[queueUrlVar(kind)], AttributeNames: ["QueueArn"] })), 3000);
    return true;
  } catch {
    return false;
  } finally {
    sqs.destroy();
  }
}

import { SQSClient } from "@aws-sdk/client-sqs";
import type { Env } from "../env";
import { deadLetterUrlVar, queueUrlVar, type JobKind } from "./kinds";

/** Credentials are always explicit: Workers have no AWS credential chain. */
export function sqsClient(env: Env): SQSClient {
  return new SQSClient({
    region: env.SQS_REGION ?? "us-east-1",
    endpoint: env.SQS_ENDPOINT || undefined,
    credentials: {
      accessKeyId: env.SQS_ACCESS_KEY_ID ?? "local",
      secretAccessKey: env.SQS_SECRET_ACCESS_KEY ?? "local",
    },
    // The relay and consumers retry on their own schedule; one quick SDK retry is enough.
    maxAttempts: 2,
  });
}

export function queueUrl(env: Env, kind: JobKind): string {
  const url = env[queueUrlVar(kind)];
  if (!url) throw new Error(`${queueUrlVar(kind)} is not configured`);
  return url;
}

export function deadLetterUrl(env: Env, kind: JobKind): string {
  const url = env[deadLetterUrlVar(kind)];
  if (!url) throw new Error(`${deadLetterUrlVar(kind)} is not configured`);
  return url;
}

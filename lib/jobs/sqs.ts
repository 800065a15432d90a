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

/**
 * The isolate's client for these settings, made once: making one cost the consumers and the relay CPU on
 * every call (and in Node a new connection pool). It holds no request's I/O: each send is its own request.
 * Not to be destroyed.
 */
export function sharedSqsClient(env: Env): SQSClient {
  const key = `${env.SQS_ENDPOINT ?? ""}\n${env.SQS_REGION ?? ""}\n${env.SQS_ACCESS_KEY_ID ?? ""}\n${env.SQS_SECRET_ACCESS_KEY ?? ""}`;
  let client = clients.get(key);
  if (!client) {
    client = sqsClient(env);
    clients.set(key, client);
  }
  return client;
}

const clients = new Map<string, SQSClient>();

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

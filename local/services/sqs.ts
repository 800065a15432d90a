import type { Server } from "node:http";
import { CreateQueueCommand, GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { createSqsServer } from "local-aws-sqs";
import type { Env } from "../../lib/env";
import { MAX_ATTEMPTS } from "../../lib/jobs/consumer";
import { JOB_KINDS, deadLetterUrlVar, queueUrlVar, type JobKind } from "../../lib/jobs/kinds";
import { sqsClient } from "../../lib/jobs/sqs";

export async function startLocalSqs(port: number): Promise<{ endpoint: string; server: Server; close(): Promise<void> }> {
  const server = await createSqsServer({ port, hostname: "127.0.0.1", emulateQueueCreationLifecycle: false });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

type SqsEnv = Pick<Env, "SQS_ENDPOINT" | "SQS_REGION" | "SQS_ACCESS_KEY_ID" | "SQS_SECRET_ACCESS_KEY">;

/**
 * Create (or find) each job kind's queue and its dead-letter queue, with a redrive policy of
 * MAX_ATTEMPTS receives. Returns the `SQS_QUEUE_URL_*` variables.
 */
export async function ensureQueues(env: SqsEnv, prefix = ""): Promise<Record<string, string>> {
  const sqs = sqsClient(env as Env);
  const vars: Record<string, string> = {};
  try {
    for (const kind of Object.keys(JOB_KINDS) as JobKind[]) {
      const name = `${prefix}${JOB_KINDS[kind].queueName}`;
      const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ["QueueArn"] }));
      const main = await sqs.send(
        new CreateQueueCommand({
          QueueName: name,
          Attributes: {
            VisibilityTimeout: "60",
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: String(MAX_ATTEMPTS) }),
          },
        }),
      );
      vars[queueUrlVar(kind)] = main.QueueUrl!;
      vars[deadLetterUrlVar(kind)] = dlq.QueueUrl!;
    }
    return vars;
  } finally {
    sqs.destroy();
  }
}

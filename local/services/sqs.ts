import http, { type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CreateQueueCommand, GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { createRequestHandler, createSqsServer } from "local-aws-sqs";
import type { Env } from "../../lib/env";
import { MAX_ATTEMPTS } from "../../lib/jobs/retry-policy";
import { JOB_KINDS, deadLetterUrlVar, queueUrlVar, type JobKind } from "../../lib/jobs/kinds";
import { sqsClient } from "../../lib/jobs/sqs";

/**
 * The local SQS. local-aws-sqs answers a long poll (WaitTimeSeconds > 0) only once it holds
 * MaxNumberOfMessages messages or the wait is over, where SQS answers as soon as any message is there;
 * a consumer long-polling for 10 messages would then sit up to the whole wait on a job that is already
 * queued. So the emulator runs behind a small front on `port` that turns such a long poll into short
 * polls (WaitTimeSeconds 0) every 50 ms until a message comes or the wait is over. Everything else
 * passes through unchanged. `promptLongPoll: false` serves the emulator as it is.
 */
export async function startLocalSqs(
  port: number,
  opts: { promptLongPoll?: boolean } = {},
): Promise<{ endpoint: string; server: Server; close(): Promise<void> }> {
  const closeServer = (server: Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  if (opts.promptLongPoll === false) {
    const server = await createSqsServer({ port, hostname: "127.0.0.1", emulateQueueCreationLifecycle: false });
    return { endpoint: `http://127.0.0.1:${port}`, server, close: () => closeServer(server) };
  }
  // Queue URLs name the front's port, so clients (which use the queue URL as endpoint) come to the front.
  const { requestHandler } = createRequestHandler({ port, hostname: "127.0.0.1", emulateQueueCreationLifecycle: false });
  const inner = http.createServer(requestHandler);
  await listen(inner, 0);
  const innerPort = (inner.address() as AddressInfo).port;

  const call = (req: http.IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const headers = { ...req.headers, "content-length": String(body.length) };
      delete headers.host;
      const out = http.request({ host: "127.0.0.1", port: innerPort, method: req.method, path: req.url, headers }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("end", () => resolve({ status: answer.statusCode ?? 500, headers: answer.headers, body: Buffer.concat(chunks) }));
        answer.on("error", reject);
      });
      out.on("error", reject);
      out.end(body);
    });

  const front = http.createServer(async (req, res) => {
    let clientGone = false;
    res.on("close", () => (clientGone = true));
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      let body = Buffer.concat(chunks);
      let waitMs = 0;
      if (req.headers["x-amz-target"] === "AmazonSQS.ReceiveMessage") {
        try {
          const json = JSON.parse(body.toString("utf8"));
          waitMs = Number(json.WaitTimeSeconds ?? 0) * 1000;
          if (waitMs > 0 && waitMs <= 20_000) body = Buffer.from(JSON.stringify({ ...json, WaitTimeSeconds: 0 }));
          else waitMs = 0; // let the emulator validate what it does not accept
        } catch {}
      }
      const deadline = Date.now() + waitMs;
      let answer = await call(req, body);
      while (waitMs > 0 && answer.status === 200 && !answer.body.includes('"Messages"') && Date.now() < deadline && !clientGone) {
        await new Promise((r) => setTimeout(r, Math.min(50, deadline - Date.now())));
        answer = await call(req, body);
      }
      const headers = { ...answer.headers };
      delete headers["transfer-encoding"];
      headers["content-length"] = String(answer.body.length);
      res.writeHead(answer.status, headers).end(answer.body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(String(error));
    }
  });
  try {
    await listen(front, port);
  } catch (error) {
    await closeServer(inner);
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    server: front,
    close: async () => {
      await closeServer(front);
      await closeServer(inner);
    },
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
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

// Publishing 1,000 renditions to a local webhook receiver, end to end (publish-now → outbox → SQS →
// publish consumer → signed webhook → published), beside raw local SQS send+receive+delete
// throughput measured in the same run. Run: npx tsx bench/publish-throughput.ts [renditions] [consumers]
import "../lib/db/node";
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { and, eq, inArray, sql } from "drizzle-orm";
import gateway from "../functions/all-groups";
import { publications } from "../db/schema";
import { openDb } from "../lib/db/client";
import type { Env } from "../lib/env";
import { drainQueue } from "../lib/jobs/consumer";
import { relayOutbox } from "../lib/jobs/outbox";
import { sqsClient } from "../lib/jobs/sqs";
import { ensureQueues } from "../local/services/sqs";
import { startEphemeralStack } from "../local/services/ephemeral-stack";
import { publish } from "../queues/publish";
import { startWebhookReceiver } from "../test/peers/webhook-receiver";
import { seedWebhookDrafts } from "./seed-webhook-drafts";
import { printTable, progress } from "./stats";

const RENDITIONS = Number(process.argv[2] ?? 1000);
const CONSUMERS = Number(process.argv[3] ?? 4);
const PER_PUBLICATION = 5;

const stack = await startEphemeralStack("herald-bench");
const env = { ...stack.env, RATE_LIMIT_PER_MINUTE: "100000000" } as unknown as Env; // measure the API, not the per-token rate limit
const receiver = await startWebhookReceiver({ secret: "whsec_" + Buffer.from("bench secret").toString("base64") });
try {
  const { token, ids } = await seedWebhookDrafts(
    env,
    receiver.url,
    "whsec_" + Buffer.from("bench secret").toString("base64"),
    RENDITIONS / PER_PUBLICATION,
    PER_PUBLICATION,
  );
  const { db, close } = openDb(env);

  const started = performance.now();
  for (let i = 0; i < ids.length; i += 10) {
    await Promise.all(
      ids.slice(i, i + 10).map(async (id) => {
        const res = await gateway.request(
          `/publications/${id}/publish-now`,
          { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: '{"expected_revision":1}' },
          env,
        );
        if (res.status !== 202) throw new Error(`publish-now ${res.status} ${await res.text()}`);
      }),
    );
  }
  const queuedAt = performance.now();
  let done = 0;
  const finished = async () => {
    const [{ n }] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(publications)
      .where(and(eq(publications.status, "published"), inArray(publications.id, ids)));
    done = n;
    return n === ids.length;
  };
  let stop = false;
  const loops = Array.from({ length: CONSUMERS }, async () => {
    while (!stop) await drainQueue(env, publish, { waitSeconds: 1, budgetMs: 3000 });
  });
  const relay = (async () => {
    while (!stop) {
      await relayOutbox(db, env).catch((err) => console.error("relay round failed:", err?.cause?.message ?? err?.message ?? err));
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  while (!(await finished())) {
    progress("published publications", done, ids.length);
    await new Promise((r) => setTimeout(r, 250));
  }
  progress("published publications", done, ids.length);
  const endToEndMs = performance.now() - started;
  stop = true;
  await Promise.all([...loops, relay]);
  const failed = (
    await db
      .select({ id: publications.id })
      .from(publications)
      .where(inArray(publications.status, ["failed", "partially_published"]))
  ).length;
  await close();
  const received = receiver.deliveries.length;

  // Raw SQS in the same run: the same number of messages, sent, received and deleted by the same number of loops.
  const queues = await ensureQueues(env, "raw-");
  const url = queues.SQS_QUEUE_URL_PUBLISH;
  const sqs = sqsClient(env);
  const rawStart = performance.now();
  let sent = 0;
  await Promise.all(
    Array.from({ length: CONSUMERS }, async () => {
      while (sent < RENDITIONS) {
        sent++;
        await sqs.send(
          new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify({ job_id: `raw_${sent}`, kind: "publication.publish", payload: {} }) }),
        );
      }
    }),
  );
  let consumed = 0;
  await Promise.all(
    Array.from({ length: CONSUMERS }, async () => {
      while (consumed < RENDITIONS) {
        const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
        for (const m of Messages) {
          await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
          consumed++;
        }
      }
    }),
  );
  const rawMs = performance.now() - rawStart;
  sqs.destroy();

  console.log(`\n${RENDITIONS} renditions in ${ids.length} publications (${PER_PUBLICATION} webhook destinations each), ${CONSUMERS} consumer loops`);
  printTable([
    { measure: "end to end: renditions/s", value: (RENDITIONS / (endToEndMs / 1000)).toFixed(1) },
    { measure: "end to end: total", value: `${(endToEndMs / 1000).toFixed(2)} s (publish-now calls ${((queuedAt - started) / 1000).toFixed(2)} s)` },
    { measure: "webhook deliveries accepted (unique webhook-id)", value: received },
    { measure: "receiver requests (incl. retries)", value: receiver.attempts.length },
    { measure: "publications failed / partial", value: failed },
    { measure: "raw SQS send+receive+delete: messages/s", value: (RENDITIONS / (rawMs / 1000)).toFixed(1) },
    { measure: "ratio end-to-end / raw SQS", value: (RENDITIONS / (endToEndMs / 1000) / (RENDITIONS / (rawMs / 1000))).toFixed(3) },
  ]);
} finally {
  await receiver.stop();
  await stack.stop();
}
process.exit(0);

import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../lib/env";
import { drainQueue, type ConsumerDefinition } from "../lib/jobs/consumer";
import { queueUrl, sqsClient } from "../lib/jobs/sqs";
import { ensureQueues } from "../local/services/sqs";
import { env } from "./helpers/harness";

/**
 * lib/jobs/consumer.ts drainQueue against the real local SQS: the budget is checked before each message, and
 * what it will not start is given back at once without spending an attempt; a job that outlives its message's
 * visibility keeps it hidden from a second consumer (lib/jobs/message-visibility.ts).
 */
let sqs: SQSClient;
beforeAll(() => void (sqs = sqsClient(env as Env)));
afterAll(() => sqs.destroy());

const ownQueues = async (label: string) => ({ ...env, ...(await ensureQueues(env, `${label}-${Date.now()}-`)) }) as Env;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function send(e: Env, jobIds: string[]) {
  for (const id of jobIds) {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl(e, "analytics.refresh"),
        MessageBody: JSON.stringify({ job_id: id, kind: "analytics.refresh", workspace_id: null, payload: {} }),
      }),
    );
  }
}

async function inQueue(e: Env, url = queueUrl(e, "analytics.refresh")) {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"] }),
  );
  return { visible: Number(Attributes?.ApproximateNumberOfMessages), hidden: Number(Attributes?.ApproximateNumberOfMessagesNotVisible) };
}

describe("a drain's time budget", () => {
  it("is checked before each message: the ones it will not start are receivable at once, with no attempt spent", async () => {
    const e = await ownQueues("budget");
    const ids = Array.from({ length: 6 }, (_, i) => `job_budget_${Date.now()}_${i}`);
    await send(e, ids);
    const attempts = new Map<string, number>();
    const slow: ConsumerDefinition<"analytics.refresh"> = {
      kind: "analytics.refresh",
      async handle({ job, attempt }) {
        attempts.set(job.job_id, attempt);
        await sleep(400);
      },
    };
    // Six received in one batch; at 400 ms a job, a 900 ms budget starts two or three of them.
    const first = await drainQueue(e, slow, { waitSeconds: 1, budgetMs: 900 });
    expect(first.received).toBe(6);
    expect(first.processed).toBeGreaterThanOrEqual(1);
    expect(first.released).toBeGreaterThanOrEqual(1);
    expect(first.processed + first.released).toBe(6);
    expect(first.failed).toBe(0);

    // Given back at once: visible now (not in a minute, when their visibility would have lapsed), as first deliveries.
    expect(await inQueue(e)).toEqual({ visible: first.released, hidden: 0 });

    // The next drain runs them as first attempts (the attempt counts SQS receives too, so a release that SQS
    // counted as a receive would make it 2); nothing reached the dead-letter queue.
    let rest = 0;
    for (let i = 0; i < 10 && rest < first.released; i++) rest += (await drainQueue(e, slow, { waitSeconds: 1, budgetMs: 10_000 })).processed;
    expect(rest).toBe(first.released);
    expect([...attempts.keys()].sort()).toEqual([...ids].sort());
    expect(new Set(attempts.values())).toEqual(new Set([1]));
    expect(await inQueue(e, e.SQS_QUEUE_URL_ANALYTICS_DLQ)).toEqual({ visible: 0, hidden: 0 });
  });
});

describe("a job that outlives its message's visibility", () => {
  // Another consumer polling the same queue while the job runs.
  async function secondReceiver(e: Env, forMs: number): Promise<string[]> {
    const got: string[] = [];
    const until = Date.now() + forMs;
    while (Date.now() < until) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl(e, "analytics.refresh"), WaitTimeSeconds: 1, VisibilityTimeout: 30 }),
      );
      got.push(...Messages.map((m) => JSON.parse(m.Body!).job_id));
    }
    return got;
  }

  const longJob = (ran: string[]): ConsumerDefinition<"analytics.refresh"> => ({
    kind: "analytics.refresh",
    mode: "steps",
    async handle({ job }) {
      ran.push(job.job_id);
      await sleep(4500);
    },
  });

  it("keeps it hidden while it runs: a second consumer does not get it", { timeout: 20_000 }, async () => {
    const e = await ownQueues("heartbeat");
    const id = `job_heartbeat_${Date.now()}`;
    await send(e, [id]);
    const ran: string[] = [];
    // Hidden 2 s at a time, extended every second: the 4.5 s job outlives the first two seconds twice over.
    const draining = drainQueue(e, longJob(ran), { waitSeconds: 1, budgetMs: 3000, visibility: { visibilitySeconds: 2, heartbeatSeconds: 1 } });
    await sleep(300);
    const seen = await secondReceiver(e, 4000);
    const result = await draining;
    expect(result).toMatchObject({ processed: 1, failed: 0 });
    expect(ran).toEqual([id]);
    expect(seen).toEqual([]);
    expect(await inQueue(e)).toEqual({ visible: 0, hidden: 0 });
  });

  it("(the same without extensions: the second consumer gets it, so the test above can tell)", { timeout: 20_000 }, async () => {
    const e = await ownQueues("noheartbeat");
    const id = `job_noheartbeat_${Date.now()}`;
    await send(e, [id]);
    const draining = drainQueue(e, longJob([]), { waitSeconds: 1, budgetMs: 3000, visibility: { visibilitySeconds: 2, heartbeatSeconds: 60 } });
    await sleep(300);
    const seen = await secondReceiver(e, 4000);
    await draining;
    expect(seen).toEqual([id]);
  });
});

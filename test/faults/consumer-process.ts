// A publish consumer in a process of its own, driven over IPC by the fault matrix (test/faults/child.ts), so a
// test can SIGKILL it at an exact step and run it with a skewed clock. clock-skew must be imported first.
import "./clock-skew";
import "../../lib/db/node";
import type { Message } from "@aws-sdk/client-sqs";
import { drainQueue } from "../../lib/jobs/consumer";
import { sharedSqsClient } from "../../lib/jobs/sqs";
import type { Env } from "../../lib/env";
import { publish } from "../../queues/publish";

const env = JSON.parse(process.env.FAULT_ENV ?? "{}") as Env;
const send = (message: unknown) => process.send?.(message);

/** When set, the next receive that brings messages reports them and never returns (the process is then killed). */
let stallAfterReceive = false;

// Every message this process receives is reported (job id and receipt handle), so the test knows what a killed
// consumer held and can let its visibility lapse.
sharedSqsClient(env).middlewareStack.add(
  (next, context) => async (args) => {
    const out = await next(args);
    if (context.commandName === "ReceiveMessageCommand") {
      const messages = ((out.output as { Messages?: Message[] }).Messages ?? []).map((m) => {
        let jobId: string | null = null;
        try {
          jobId = JSON.parse(m.Body ?? "").job_id ?? null;
        } catch {}
        return { jobId, receiptHandle: m.ReceiptHandle, body: m.Body };
      });
      if (messages.length) send({ event: "received", messages });
      if (messages.length && stallAfterReceive) {
        send({ event: "stalled" });
        await new Promise(() => {});
      }
    }
    return out;
  },
  { step: "initialize", name: "faultMatrixReceiveSpy" },
);

process.on("message", async (m: { id: number; cmd: "drain" | "clock"; budgetMs?: number; waitSeconds?: number; stallAfterReceive?: boolean }) => {
  if (m.cmd === "clock") return send({ id: m.id, now: Date.now(), dateNow: new Date().getTime() });
  stallAfterReceive = m.stallAfterReceive ?? false;
  try {
    const result = await drainQueue(env, publish, { waitSeconds: m.waitSeconds ?? 0, budgetMs: m.budgetMs ?? 5000 });
    send({ id: m.id, result });
  } catch (error) {
    send({ id: m.id, error: String((error as Error)?.stack ?? error) });
  }
});
send({ event: "ready" });

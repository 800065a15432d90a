import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  SendMessageBatchCommand,
  type Message,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { errorFields, logEvent } from "../log";

/**
 * How a received message stays ours while its job runs, and how one we will not start is given back.
 *
 * A received message is hidden from other consumers for its queue's visibility timeout (60 s as Herald creates
 * them: local/services/sqs.ts, docs/operations/deploying.md). A job that outlives it would be handed to a second consumer while the
 * first still works, so while a job runs its message's visibility is extended every `heartbeatSeconds`, the
 * first time `heartbeatSeconds` after the receive (a message can wait behind others of its batch).
 */
export interface VisibilityTiming {
  /** Seconds a received (or extended) message stays hidden. */
  visibilitySeconds: number;
  /** Extend every this many seconds, counted from the receive; well under `visibilitySeconds`. */
  heartbeatSeconds: number;
}

/** For queues of 60 s: a third of the visibility between extensions, so one lost extension call is survived. */
export const DEFAULT_VISIBILITY: VisibilityTiming = { visibilitySeconds: 60, heartbeatSeconds: 20 };

/** Keeps `message` hidden until `stop()` (call it once the job has ended, whatever the outcome). */
export function keepHidden(sqs: SQSClient, url: string, message: Message, receivedAt: number, timing: VisibilityTiming): { stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const extend = async () => {
    try {
      await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle, VisibilityTimeout: timing.visibilitySeconds }));
    } catch (err) {
      // The next beat tries again; if all fail the message reappears and its job id's receipt keeps it harmless.
      logEvent("warn", "job message visibility not extended", { message_id: message.MessageId, ...errorFields(err) });
    }
    // Chained, not an interval: a slow call never overlaps the next.
    if (!stopped) timer = setTimeout(extend, timing.heartbeatSeconds * 1000);
  };
  timer = setTimeout(extend, Math.max(0, receivedAt + timing.heartbeatSeconds * 1000 - Date.now()));
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * Gives back messages received but not started (the drain's time ran out): each is sent again as it was and
 * the original deleted with the batch (`deleteMessages`). Not ChangeMessageVisibility(0): SQS would count that
 * receive, and receives count as attempts (consumer.ts `attemptOf`) and toward the queue's dead-letter redrive.
 * Returns the messages to delete: those sent again. If sending fails (SQS unreachable), they are made visible
 * at once instead, and kept: a receive counted is better than a minute's wait.
 */
export async function releaseUnstarted(sqs: SQSClient, url: string, messages: Message[]): Promise<Message[]> {
  if (messages.length === 0) return [];
  const entries = messages.map((m, i) => ({ Id: String(i), MessageBody: m.Body ?? "" }));
  try {
    const { Failed = [] } = await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
    const failed = new Set(Failed.map((f) => f.Id));
    const kept = messages.filter((_, i) => failed.has(String(i)));
    if (kept.length) await makeVisible(sqs, url, kept);
    return messages.filter((_, i) => !failed.has(String(i)));
  } catch (err) {
    logEvent("warn", "job messages not sent again", { count: messages.length, ...errorFields(err) });
    await makeVisible(sqs, url, messages);
    return [];
  }
}

async function makeVisible(sqs: SQSClient, url: string, messages: Message[]): Promise<void> {
  await sqs
    .send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: url,
        Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0 })),
      }),
    )
    .catch((err) => logEvent("warn", "job messages not made visible", { count: messages.length, ...errorFields(err) }));
}

/** Deletes a batch's messages in one request (handled ones, and released ones already sent again). */
export async function deleteMessages(sqs: SQSClient, url: string, messages: Message[]): Promise<void> {
  if (messages.length === 0) return;
  const { Failed = [] } = await sqs.send(
    new DeleteMessageBatchCommand({ QueueUrl: url, Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })) }),
  );
  // Not deleted (its receipt handle expired, say): it comes back and is recognised by its job id.
  for (const failed of Failed) logEvent("warn", "job message not deleted", { code: failed.Code ?? "unknown" });
}

import { and, eq, isNull } from "drizzle-orm";
import { inboundMessages, socialAccounts } from "../db/schema";
import { PROVIDERS } from "../lib/accounts/catalog";
import { newId } from "../lib/ids";
import type { ConsumerDefinition } from "../lib/jobs/consumer";
import { consumerRuns } from "../lib/jobs/consumer-worker";
import { queueWorker } from "../lib/jobs/queue-worker";
import { accountContext } from "../lib/accounts/account-context";
import { adapterFor } from "../lib/platforms/registry";
import { ProviderError, type InboundMessage } from "../lib/providers/types";

const clip = (text: string | null, max: number) => (text === null ? null : text.length > max ? text.slice(0, max) : text);

/**
 * Collects one account's mentions and replies through its adapter and stores each once (unique per
 * account and provider id), so a redelivered job, or the next refresh reading the same messages, adds
 * nothing twice. A provider refusal that retrying cannot fix (revoked credentials, a server without
 * notifications) is recorded on the account and ends the job; a transient one fails it for a retry.
 */
export const messagesRefresh: ConsumerDefinition<"messages.refresh"> = {
  kind: "messages.refresh",
  async handle({ tx, env, job }) {
    const [account] = await tx
      .select()
      .from(socialAccounts)
      .where(and(eq(socialAccounts.id, job.payload.account_id), isNull(socialAccounts.disconnectedAt)))
      .limit(1);
    // Disconnected since, or messages turned off: nothing to collect.
    if (!account || !account.isActive || !account.messagesEnabled || !PROVIDERS[account.platform].messaging_supported) return;
    const adapter = adapterFor(account.platform);
    let messages: InboundMessage[];
    try {
      messages = (await adapter.readMessages?.(await accountContext(env, account, tx), {})) ?? [];
    } catch (err) {
      if (err instanceof ProviderError && !err.info.retryable) {
        await tx
          .update(socialAccounts)
          .set({ messagesErrorCode: err.info.code.slice(0, 100) })
          .where(eq(socialAccounts.id, account.id));
        return;
      }
      throw err;
    }
    if (messages.length > 0) {
      await tx
        .insert(inboundMessages)
        .values(
          messages.map((m) => ({
            id: newId("msg"),
            workspaceId: account.workspaceId,
            socialAccountId: account.id,
            platform: account.platform,
            externalId: m.external_id.slice(0, 500),
            kind: m.kind,
            authorHandle: m.author_handle.slice(0, 300),
            text: clip(m.text, 20_000)!,
            url: clip(m.url, 2048),
            inReplyToExternalId: clip(m.in_reply_to_external_id, 500),
            sentAt: new Date(m.created_at),
          })),
        )
        .onConflictDoNothing({ target: [inboundMessages.socialAccountId, inboundMessages.externalId] });
    }
    await tx.update(socialAccounts).set({ messagesCollectedAt: new Date(), messagesErrorCode: null }).where(eq(socialAccounts.id, account.id));
  },
};

export default queueWorker(consumerRuns(messagesRefresh));

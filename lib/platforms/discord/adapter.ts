import { readTextCapped } from "../../net/read-capped";
import { parseAnswerText } from "../../providers/answer";
import { DISCORD_MAX_ATTACHMENTS, DISCORD_MAX_FILE_BYTES, DISCORD_TEXT_LIMIT, discordLength, discordRetryAt, messagePayload, multipartBody } from "./message";
import { errorFromResponse, MAX_PROVIDER_ANSWER_BYTES, providerFetch, readJson } from "../../providers/http";
import { fetchMedia } from "../../providers/media";
import { segmentText } from "../../providers/text";
import { ProviderError, type AccountContext, type PostRef, type ProviderAdapter, type ProviderProfile, type SegmentToPublish } from "../../providers/types";

/**
 * Discord channel webhooks (https://discord.com/developers/docs/resources/webhook): each segment is one
 * message, `POST <webhook URL>?wait=true`, so Discord answers with the message (its id is the segment's
 * external_id). Webhook messages cannot reply to each other: a thread goes out as consecutive messages, in
 * order. Media ride on the opening message as attachments (`files[n]` with `payload_json`), alt text as
 * each attachment's `description`.
 *
 * What Discord cannot do, and what Herald does about it:
 * - Execute Webhook takes no idempotency key, and a webhook cannot list what it posted (Get Webhook Message
 *   needs the message id, which only the lost answer carried). So after an attempt whose outcome is unknown
 *   (a timeout or a cut connection after sending) Herald cannot ask, and must not send again: `reconcile`
 *   says so (`unverifiable`), and the rendition ends at that attempt `failed` with `outcome-unknown` and
 *   `recovery_action: "verify_on_platform"` (CONTRACT §9): a person looks at the channel before publishing
 *   again. Never a second message from Herald's side.
 * - 401 (Invalid Webhook Token) and 404 (Unknown Webhook: it was deleted; Discord asks that a webhook that
 *   answered 404 never be used again) are both `authentication` → `reconnect_account`: the URL is the
 *   account's credential, and the only fix is connecting the channel's new webhook URL.
 * - 429: Discord's `X-RateLimit-Reset-After` / `retry_after` is when to come back.
 */

interface DiscordMessage {
  id: string;
  channel_id?: string;
}

interface DiscordWebhook {
  id: string;
  type?: number;
  name?: string | null;
  avatar?: string | null;
  channel_id?: string | null;
  guild_id?: string | null;
}

const SNOWFLAKE = /^\d{1,25}$/;
const sorted = (segments: SegmentToPublish[]) => [...segments].sort((a, b) => a.position - b.position);

function webhookUrl(account: AccountContext): string {
  const url = account.credentials.webhook_url;
  if (!url) throw new ProviderError("The Discord account has no webhook URL.", { kind: "configuration", code: "missing_credentials", retryable: false });
  return url;
}

/** A non-2xx answer as a ProviderError, with Discord's numeric error code (`discord_50027`) where it gives one. */
async function discordError(res: Response, mutating: boolean): Promise<ProviderError> {
  const body = await readJson<{ message?: unknown; code?: unknown; retry_after?: unknown }>(res);
  const code = typeof body?.code === "number" && Number.isInteger(body.code) && body.code > 0 ? `discord_${body.code}` : undefined;
  const message = typeof body?.message === "string" ? body.message : undefined;
  const base = errorFromResponse(res, { providerName: "Discord", code, message, mutating });
  if (res.status === 404) return new ProviderError(base.message, { ...base.info, kind: "authentication", retryable: false });
  if (res.status === 429) return new ProviderError(base.message, { ...base.info, retryAt: discordRetryAt(res.headers, body) ?? base.info.retryAt });
  return base;
}

/** The 2xx answer's message; Discord did post it, so an unreadable answer leaves only its id unknown: outcome unknown. */
async function readMessage(res: Response): Promise<DiscordMessage> {
  let answer: unknown;
  try {
    answer = parseAnswerText(await readTextCapped(res, MAX_PROVIDER_ANSWER_BYTES), "Execute Webhook");
  } catch (err) {
    const info = err instanceof ProviderError ? err.info : { kind: "unknown" as const, code: "malformed_not_json", retryable: true };
    throw new ProviderError((err as Error).message, { ...info, outcomeUnknown: true });
  }
  const message = answer as Partial<DiscordMessage> | null;
  if (typeof message?.id !== "string" || !SNOWFLAKE.test(message.id)) {
    throw new ProviderError("Execute Webhook: the answer has no message id.", { kind: "unknown", code: "malformed_id", retryable: true, outcomeUnknown: true });
  }
  return { id: message.id, channel_id: typeof message.channel_id === "string" && SNOWFLAKE.test(message.channel_id) ? message.channel_id : undefined };
}

/** The message's link, from the channel link stored as the account's instance URL (https://discord.com/channels/<guild>/<channel>). */
function messageLink(account: AccountContext, message: DiscordMessage): string | null {
  const match = /^https:\/\/discord\.com\/channels\/(\d+)\/(\d+)$/.exec(account.instanceUrl ?? "");
  return match ? `https://discord.com/channels/${match[1]}/${message.channel_id ?? match[2]}/${message.id}` : null;
}

async function execute(account: AccountContext, segment: SegmentToPublish): Promise<DiscordMessage> {
  if (segment.media.length > DISCORD_MAX_ATTACHMENTS) {
    throw new ProviderError(`A Discord message carries at most ${DISCORD_MAX_ATTACHMENTS} attachments.`, {
      kind: "validation",
      code: "too_many_media",
      retryable: false,
    });
  }
  const payload = messagePayload(segment, segment.media);
  const files: { bytes: Uint8Array<ArrayBuffer>; mimeType: string }[] = [];
  for (const item of segment.media) files.push({ bytes: await fetchMedia(account, item, DISCORD_MAX_FILE_BYTES), mimeType: item.mime_type });
  const target = new URL(webhookUrl(account));
  target.searchParams.set("wait", "true");
  const res = await providerFetch(target.toString(), {
    method: "POST",
    headers: { accept: "application/json", "user-agent": "Herald/1", ...(files.length ? {} : { "content-type": "application/json" }) },
    body: files.length ? multipartBody(payload, files) : JSON.stringify(payload),
    allowPrivateUrls: account.allowPrivateUrls,
    mutating: true,
  });
  if (!res.ok) throw await discordError(res, true);
  return readMessage(res);
}

export const discordAdapter: ProviderAdapter = {
  platform: "discord",
  textLimit: () => DISCORD_TEXT_LIMIT,
  measure: discordLength,

  async publish(account, rendition, progress) {
    const segments = sorted(rendition.segments);
    // Refuse before sending anything: a thread cut short by a too-long segment is worse than none.
    for (const segment of segments) {
      const length = discordLength(segmentText(segment));
      if (!progress.posted.has(segment.position) && length > DISCORD_TEXT_LIMIT) {
        throw new ProviderError(`Segment ${segment.position} is ${length} characters; a Discord message holds ${DISCORD_TEXT_LIMIT}.`, {
          kind: "validation",
          code: "text_too_long",
          retryable: false,
        });
      }
    }
    let first: PostRef | null = null;
    for (const segment of segments) {
      let ref = progress.posted.get(segment.position) ?? null;
      if (!ref) {
        const message = await execute(account, segment);
        ref = { id: message.id, url: messageLink(account, message) };
        await progress.onPosted(segment.position, ref);
      }
      first ??= ref;
    }
    return { external_id: first?.id ?? null, external_url: first?.url ?? null };
  },

  /** Discord cannot be asked what a webhook posted without the message's id (see the top of this file): never send again. */
  async reconcile() {
    throw new ProviderError("Discord cannot say whether the message went out: a webhook cannot list its messages, and Herald will not send it twice.", {
      kind: "unknown",
      code: "outcome_unverifiable",
      retryable: true,
      outcomeUnknown: true,
      unverifiable: true,
    });
  },

  /** Get Webhook with Token: the webhook's name, channel and guild (no user is returned with a token). */
  async readProfile(account): Promise<ProviderProfile> {
    const target = new URL(webhookUrl(account));
    target.search = ""; // thread_id is for executing only
    const res = await providerFetch(target.toString(), {
      headers: { accept: "application/json", "user-agent": "Herald/1" },
      allowPrivateUrls: account.allowPrivateUrls,
    });
    if (!res.ok) throw await discordError(res, false);
    const hook: Partial<DiscordWebhook> = (await readJson<Partial<DiscordWebhook>>(res)) ?? {};
    if (typeof hook.id !== "string" || !SNOWFLAKE.test(hook.id)) {
      throw new ProviderError("Get Webhook: the answer has no webhook id.", { kind: "unknown", code: "malformed_id", retryable: true });
    }
    if (hook.type !== undefined && hook.type !== 1) {
      throw new ProviderError("This is not an incoming webhook (only incoming webhooks can post messages).", {
        kind: "configuration",
        code: "not_incoming_webhook",
        retryable: false,
      });
    }
    const guild = typeof hook.guild_id === "string" && SNOWFLAKE.test(hook.guild_id) ? hook.guild_id : null;
    const channel = typeof hook.channel_id === "string" && SNOWFLAKE.test(hook.channel_id) ? hook.channel_id : null;
    return {
      username: typeof hook.name === "string" && hook.name ? hook.name.slice(0, 200) : `webhook ${hook.id}`,
      avatar_url:
        typeof hook.avatar === "string" && /^[a-z0-9_]+$/i.test(hook.avatar) ? `https://cdn.discordapp.com/avatars/${hook.id}/${hook.avatar}.png` : null,
      external_account_id: hook.id,
      // The channel's link (public, no token): where the messages appear, and the base of each message's link.
      instance_url: guild && channel ? `https://discord.com/channels/${guild}/${channel}` : null,
      text_limit: DISCORD_TEXT_LIMIT,
      account_kind: "channel",
    };
  },
};

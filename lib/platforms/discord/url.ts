import { checkOutboundUrl } from "../../net/outbound-url";

/**
 * A Discord channel webhook URL (https://discord.com/developers/docs/resources/webhook, Execute Webhook):
 * `https://discord.com/api[/v<n>]/webhooks/<webhook id>/<token>`, or the older discordapp.com host, with an
 * optional `thread_id` query (a thread of a forum channel). The token is the webhook's only credential, so
 * the whole URL is a secret: it is stored sealed and never shown; the webhook id alone is public.
 * Pure: nothing is fetched here.
 */

export const DISCORD_HOSTS = ["discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com"];

const PATH = /^\/api(?:\/v\d{1,2})?\/webhooks\/(\d{15,25})\/([A-Za-z0-9_-]{20,100})\/?$/;

export type DiscordWebhookUrl = { ok: true; url: string; webhookId: string } | { ok: false; reason: string };

/**
 * The webhook URL as Herald stores and calls it, or why not. Another origin than Discord's is refused unless
 * `allowOtherOrigins` (ALLOW_PRIVATE_URLS: tests and local development point it at a stand-in).
 */
export function parseDiscordWebhookUrl(raw: string, allowOtherOrigins: boolean): DiscordWebhookUrl {
  const verdict = checkOutboundUrl(raw.trim(), allowOtherOrigins);
  if (!verdict.ok) return { ok: false, reason: verdict.reason! };
  const url = verdict.url!;
  if (!allowOtherOrigins && (url.protocol !== "https:" || !DISCORD_HOSTS.includes(url.hostname) || url.port !== "")) {
    return { ok: false, reason: "must be a Discord webhook URL (https://discord.com/api/webhooks/<id>/<token>)" };
  }
  const match = PATH.exec(url.pathname);
  if (!match) return { ok: false, reason: "must have the path of a Discord webhook URL (/api/webhooks/<id>/<token>)" };
  const threadId = url.searchParams.get("thread_id");
  if ([...url.searchParams.keys()].some((k) => k !== "thread_id") || (threadId !== null && !/^\d{15,25}$/.test(threadId))) {
    return { ok: false, reason: "may carry only a thread_id query (a thread of a forum channel)" };
  }
  if (url.hash) return { ok: false, reason: "must not have a fragment" };
  const clean = `${url.origin}${url.pathname.replace(/\/$/, "")}${threadId ? `?thread_id=${threadId}` : ""}`;
  return { ok: true, url: clean, webhookId: match[1] };
}

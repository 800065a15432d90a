import { startDiscord, type DiscordPeer } from "../../peers/discord-api";
import type { ProviderDriver } from "../driver";
import { connectAccount } from "../herald";

/**
 * Discord channel webhooks against the test double written from Discord's developer documentation
 * (test/peers/discord-api.ts: Discord cannot run here). Its faults are Discord's own answers: an invalid
 * webhook token's 401, a 429 with X-RateLimit-Reset-After and `retry_after`, a message stored whose answer
 * never comes.
 */

let discord: DiscordPeer;

export const discordDriver: ProviderDriver = {
  platform: "discord",
  label: "discord (documented test double)",
  textLimit: 2000,
  threads: { kind: "consecutive", documented: "webhook messages cannot reply to one another: sent as consecutive messages" },
  images: { supported: true },
  timeoutOutcome: "verify_on_platform",
  tokenRefresh: { supported: false, reason: "no tokens: the channel webhook URL is the credential" },

  async start() {
    discord = await startDiscord();
  },
  async stop() {
    await discord?.stop();
  },

  async connect(ws) {
    const hook = discord.addWebhook();
    const id = await connectAccount(ws, { platform: "discord", url: hook.url });
    return { id, platformRef: hook.id, secrets: [hook.token] };
  },

  async posts(account) {
    return discord.messagesOf(account.platformRef).map((m) => ({
      id: m.id,
      text: m.content,
      replyTo: null,
      media: m.attachments.map((a) => ({ bytes: a.bytes, altText: a.description })),
    }));
  },

  faults: {
    async unauthorized(account) {
      discord.revokeToken(account.platformRef);
    },
    async rateLimitNext(_account, resetAt) {
      discord.rateLimitNext(resetAt);
    },
    async hangAfterAcceptingNext() {
      discord.hangNext(1);
    },
    unanswered: (account) => discord.executes.filter((e) => e.webhookId === account.platformRef && e.answered === 0).length,
  },
};

import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { socialAccounts } from "../../db/schema";
import { discordAdapter } from "../../lib/platforms/discord/adapter";
import { attachmentName, DISCORD_TEXT_LIMIT, discordLength, discordRetryAt, messagePayload, multipartBody } from "../../lib/platforms/discord/message";
import { parseDiscordWebhookUrl } from "../../lib/platforms/discord/url";
import { ProviderError } from "../../lib/providers/types";
import { decryptJson } from "../../lib/secrets";
import { client } from "../helpers/client";
import { env, newUser, newWorkspace, withDb } from "../helpers/harness";
import { clientWithEnv, expectData, expectProblem, locationsOf } from "../helpers/typed";
import { accountContext, recordingProgress, rendition } from "../peers/adapter-context";
import { startDiscord, type DiscordPeer } from "../peers/discord-api";

/**
 * The Discord adapter's pure parts (message body, multipart layout, URL rules, rate-limit times) and its
 * answers to Discord's failures, against the test double written from Discord's developer documentation
 * (test/peers/discord-api.ts). The same adapter through Herald's API and pipeline: ./providers.test.ts.
 */

const HOOK = "https://discord.com/api/webhooks/1180000000000000001/AbCdEf_ghIJkl-mnOPqrsTUvwxYZ0123456789abcdefghij";

describe("Discord webhook URLs (pure)", () => {
  it("takes discord.com and discordapp.com webhook URLs (an API version, a thread_id), nothing else without ALLOW_PRIVATE_URLS", () => {
    expect(parseDiscordWebhookUrl(HOOK, false)).toEqual({ ok: true, url: HOOK, webhookId: "1180000000000000001" });
    expect(parseDiscordWebhookUrl(`${HOOK}/`, false)).toMatchObject({ ok: true, url: HOOK });
    const legacy = HOOK.replace("discord.com", "discordapp.com").replace("/api/", "/api/v10/");
    expect(parseDiscordWebhookUrl(legacy, false)).toMatchObject({ ok: true, url: legacy });
    expect(parseDiscordWebhookUrl(`${HOOK}?thread_id=1180000000000000009`, false)).toMatchObject({ ok: true, url: `${HOOK}?thread_id=1180000000000000009` });
    const refused = [
      HOOK.replace("https:", "http:"),
      HOOK.replace("discord.com", "discord.com.evil.example"),
      HOOK.replace("discord.com", "discord.com:8443"),
      HOOK.replace("discord.com", "127.0.0.1"),
      HOOK.replace("/webhooks/", "/hooks/"),
      HOOK.replace("1180000000000000001", "abc"),
      `${HOOK}/slack`,
      `${HOOK}?wait=false`,
      `${HOOK}?thread_id=x`,
      `${HOOK}#x`,
      "not a url",
    ];
    for (const url of refused) expect(parseDiscordWebhookUrl(url, false).ok, url).toBe(false);
    // A stand-in's origin only when private URLs are allowed (tests, local development); its path is still checked.
    const local = HOOK.replace("https://discord.com", "http://127.0.0.1:9999");
    expect(parseDiscordWebhookUrl(local, true)).toMatchObject({ ok: true, url: local });
    expect(parseDiscordWebhookUrl("http://127.0.0.1:9999/hook", true).ok).toBe(false);
  });
});

describe("Discord messages (pure)", () => {
  it("one segment is `content` (body, then its URL on a line of its own), with no mentions allowed", () => {
    expect(messagePayload({ body: "Launch day.", url: "https://example.com/a" })).toEqual({
      content: "Launch day.\n\nhttps://example.com/a",
      allowed_mentions: { parse: [] },
    });
    expect(messagePayload({ body: "See https://example.com/a", url: "https://example.com/a" }).content).toBe("See https://example.com/a");
  });

  it("media are attachments whose ids are the files[n] parts, alt text as description (at most 1,024 characters)", async () => {
    const payload = messagePayload({ body: "Two pictures", url: null }, [
      { mime_type: "image/png", alt_text: "A card" },
      { mime_type: "image/jpeg", alt_text: "x".repeat(2000) },
      { mime_type: "video/quicktime", alt_text: null },
    ]);
    expect(payload.attachments).toEqual([
      { id: 0, filename: "media-0.png", description: "A card" },
      { id: 1, filename: "media-1.jpg", description: "x".repeat(1024) },
      { id: 2, filename: "media-2.mov" },
    ]);
    const form = multipartBody(payload, [
      { bytes: new Uint8Array([1, 2, 3]), mimeType: "image/png" },
      { bytes: new Uint8Array([4]), mimeType: "image/jpeg" },
      { bytes: new Uint8Array([5, 6]), mimeType: "video/quicktime" },
    ]);
    expect([...form.keys()]).toEqual(["payload_json", "files[0]", "files[1]", "files[2]"]);
    expect(JSON.parse(String(form.get("payload_json")))).toEqual(payload);
    const first = form.get("files[0]") as File;
    expect([first.name, first.type, [...new Uint8Array(await first.arrayBuffer())]]).toEqual(["media-0.png", "image/png", [1, 2, 3]]);
    expect(attachmentName(4, "image/svg+xml")).toBe("media-4.svg");
    expect(attachmentName(5, "application/octet-stream")).toBe("media-5.octetstream");
  });

  it("counts code points, never fewer than Discord does (an emoji sequence is several)", () => {
    expect(discordLength("abc")).toBe(3);
    expect(discordLength("👍🏽")).toBe(2);
    expect(discordLength("é")).toBe(1);
    expect(discordAdapter.measure("👨‍👩‍👧")).toBe(5);
    expect(discordAdapter.textLimit({ instanceUrl: null })).toBe(DISCORD_TEXT_LIMIT);
  });

  it("a 429's time: X-RateLimit-Reset-After, else the body's retry_after, else Retry-After", () => {
    const now = Date.UTC(2026, 0, 1);
    const at = (h: Record<string, string>, body: { retry_after?: unknown } | null = null) => discordRetryAt(new Headers(h), body, now)?.getTime();
    expect(at({ "x-ratelimit-reset-after": "64.57", "retry-after": "65" }, { retry_after: 64.57 })).toBe(now + 64_570);
    expect(at({ "retry-after": "65" }, { retry_after: 1.5 })).toBe(now + 1500);
    expect(at({ "retry-after": "65" })).toBe(now + 65_000);
    expect(at({ "x-ratelimit-reset-after": "soon" })).toBeUndefined();
  });
});

let discord: DiscordPeer;
beforeAll(async () => {
  discord = await startDiscord();
});
afterAll(() => discord?.stop());

const accountOf = (url: string, instanceUrl: string | null = null) => accountContext({ platform: "discord", credentials: { webhook_url: url }, instanceUrl });
const failure = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${String(err)}`);
  return err;
};

describe("Discord adapter against the documented test double", () => {
  it("readProfile: the webhook's name and id, the channel's link; the token is nowhere in it", async () => {
    const hook = discord.addWebhook("Announcements");
    const profile = await discordAdapter.readProfile(accountOf(hook.url));
    expect(profile).toEqual({
      username: "Announcements",
      avatar_url: null,
      external_account_id: hook.id,
      instance_url: `https://discord.com/channels/${hook.guildId}/${hook.channelId}`,
      text_limit: 2000,
      account_kind: "channel",
    });
    expect(JSON.stringify(profile)).not.toContain(hook.token);
  });

  it("each segment is one message sent with ?wait=true; external ids and links are the messages'", async () => {
    const hook = discord.addWebhook();
    const account = accountOf(hook.url, `https://discord.com/channels/${hook.guildId}/${hook.channelId}`);
    const progress = recordingProgress();
    const result = await discordAdapter.publish(account, rendition(["First", "Second"]), progress);
    const [a, b] = discord.messagesOf(hook.id);
    expect([a.content, b.content]).toEqual(["First", "Second"]);
    expect(a.payload).toEqual({ content: "First", allowed_mentions: { parse: [] } });
    expect(progress.calls).toEqual([
      [0, { id: a.id, url: `https://discord.com/channels/${hook.guildId}/${hook.channelId}/${a.id}` }],
      [1, { id: b.id, url: `https://discord.com/channels/${hook.guildId}/${hook.channelId}/${b.id}` }],
    ]);
    expect(result).toEqual({ external_id: a.id, external_url: progress.calls[0][1].url });
    // A segment already confirmed is never sent again.
    await discordAdapter.publish(account, rendition(["First", "Second"]), recordingProgress(new Map([[0, { id: a.id, url: null }]])));
    expect(discord.messagesOf(hook.id).map((m) => m.content)).toEqual(["First", "Second", "Second"]);
  });

  it("refuses a segment over 2,000 code points before sending anything", async () => {
    const hook = discord.addWebhook();
    const err = await failure(discordAdapter.publish(accountOf(hook.url), rendition(["fine", "x".repeat(2001)]), recordingProgress()));
    expect(err.info).toMatchObject({ kind: "validation", code: "text_too_long", retryable: false });
    expect(discord.messagesOf(hook.id)).toEqual([]);
  });

  it("an invalid token (401) and a deleted webhook (404) are authentication failures: reconnect the account", async () => {
    const revoked = discord.addWebhook();
    discord.revokeToken(revoked.id);
    expect((await failure(discordAdapter.publish(accountOf(revoked.url), rendition(["x"]), recordingProgress()))).info).toMatchObject({
      kind: "authentication",
      code: "discord_50027",
      httpStatus: 401,
      retryable: false,
    });
    const deleted = discord.addWebhook();
    discord.deleteWebhook(deleted.id);
    const gone = await failure(discordAdapter.readProfile(accountOf(deleted.url)));
    expect(gone.info).toMatchObject({ kind: "authentication", code: "discord_10015", httpStatus: 404, retryable: false });
    expect(gone.message).toContain("Unknown Webhook");
    expect(gone.message).not.toContain(deleted.token);
  });

  it("429: retryable at Discord's reset; a 5xx is retryable; a timeout after sending leaves the outcome unknown, and reconcile never says it was not sent", async () => {
    const hook = discord.addWebhook();
    const resetAt = new Date(Date.now() + 42_000);
    discord.rateLimitNext(resetAt);
    const limited = await failure(discordAdapter.publish(accountOf(hook.url), rendition(["x"]), recordingProgress()));
    expect(limited.info).toMatchObject({ kind: "rate_limited", httpStatus: 429, retryable: true });
    expect(Math.abs(limited.info.retryAt!.getTime() - resetAt.getTime())).toBeLessThan(1000);
    discord.failNext(1, 502);
    expect((await failure(discordAdapter.publish(accountOf(hook.url), rendition(["x"]), recordingProgress()))).info).toMatchObject({
      kind: "unavailable",
      retryable: true,
    });
    const unverifiable = await failure(discordAdapter.reconcile(accountOf(hook.url), rendition(["x"])));
    expect(unverifiable.info).toMatchObject({ code: "outcome_unverifiable", outcomeUnknown: true });
    expect(discord.messagesOf(hook.id)).toEqual([]);
  });
});

describe("POST /accounts with a Discord channel webhook", () => {
  it("stores the webhook URL sealed and shows only the webhook id, name and channel link; refuses other URLs and a deleted webhook", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const c = client(owner.token);
    const hook = discord.addWebhook("Team news");
    const created = expectData(await c.POST("/accounts", { body: { workspace_id: ws, platform: "discord", url: hook.url } }), 201);
    expect(created).toMatchObject({
      platform: "discord",
      account_id: hook.id,
      account_username: "Team news",
      account_kind: "channel",
      instance_url: `https://discord.com/channels/${hook.guildId}/${hook.channelId}`,
      thread_replies_supported: false,
    });
    const listed = expectData(await c.GET("/accounts", { params: { query: { workspace_id: ws } } }));
    for (const answer of [created, listed]) expect(JSON.stringify(answer)).not.toContain(hook.token);
    const [row] = await withDb((db) => db.select().from(socialAccounts).where(eq(socialAccounts.id, created.id)));
    expect([row.url, JSON.stringify(row)]).toEqual([null, expect.not.stringContaining(hook.token)]);
    expect(await decryptJson(env.INSTANCE_SECRET_KEY!, row.credentialsCiphertext!)).toEqual({ webhook_url: hook.url });

    // The same webhook again: already connected.
    expectProblem(await c.POST("/accounts", { body: { workspace_id: ws, platform: "discord", url: hook.url } }), 409, "conflict");
    // Not a Discord webhook URL (and, without ALLOW_PRIVATE_URLS, not Discord's origin): 422 naming body.url, the token not echoed.
    const strict = clientWithEnv(owner.token, { ALLOW_PRIVATE_URLS: "false" });
    for (const url of [hook.url, "https://example.com/api/webhooks/1180000000000000001/abcdefghijklmnopqrstuvwxyz"]) {
      const refused = expectProblem(await strict.POST("/accounts", { body: { workspace_id: ws, platform: "discord", url } }), 422, "validation-error");
      expect(locationsOf(refused)).toEqual(["body.url"]);
      expect(JSON.stringify(refused)).not.toContain(hook.token);
    }
    const noUrl = expectProblem(await c.POST("/accounts", { body: { workspace_id: ws, platform: "discord" } }), 422, "validation-error");
    expect(locationsOf(noUrl)).toEqual(["body.url"]);
    // A deleted webhook (Discord: 404 Unknown Webhook) is refused, naming the URL; nothing is stored.
    const gone = discord.addWebhook();
    discord.deleteWebhook(gone.id);
    const refused = expectProblem(await c.POST("/accounts", { body: { workspace_id: ws, platform: "discord", url: gone.url } }), 422, "validation-error");
    expect(locationsOf(refused)).toEqual(["body.url"]);
    expect(refused.detail).toContain("Discord (channel webhook) refused these credentials (HTTP 404)");
    expect(expectData(await c.GET("/accounts", { params: { query: { workspace_id: ws } } })).map((a) => a.id)).toEqual([created.id]);
  });
});

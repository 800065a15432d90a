import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotencyKey, mastodonAdapter, mastodonLength } from "../lib/platforms/mastodon/adapter";
import { softwareFromVersion } from "../lib/platforms/mastodon/instance";
import { accountContext, recordingProgress, rendition, providerFailure } from "./peers/adapter-context";
import { startMastodon, type MastodonPeer } from "./peers/mastodon-server";

/**
 * The Mastodon adapter against a local server that answers as the Mastodon API documentation describes.
 * No Mastodon server can run here (it needs Rails, PostgreSQL, Redis and Sidekiq), so that server is a
 * test double written from the documentation: see test/peers/mastodon-server.ts.
 */

let server: MastodonPeer;
let big: MastodonPeer;
let old: MastodonPeer;

beforeAll(async () => {
  [server, big, old] = await Promise.all([
    startMastodon(),
    startMastodon({ maxCharacters: 1000, software: "akkoma" }),
    startMastodon({ v2Instance: false, software: null }),
  ]);
});
afterAll(async () => {
  await Promise.all([server.stop(), big.stop(), old.stop()]);
});

const account = (peer: MastodonPeer, who: { id: string; token: string }, over = {}) =>
  accountContext({ platform: "mastodon", instanceUrl: peer.url, externalAccountId: who.id, credentials: { access_token: who.token }, ...over });

describe("mastodon adapter (against a documented-behaviour test double)", () => {
  it("publishes a thread through in_reply_to_id, with an Idempotency-Key on every status", async () => {
    const me = server.addAccount("alice");
    const r = rendition(["first post", "second post", "third post"]);
    const progress = recordingProgress();
    const result = await mastodonAdapter.publish(account(server, me), r, progress);
    const [a, b, c] = server.statusesOf(me.id);
    expect([a.text, b.text, c.text]).toEqual(["first post", "second post", "third post"]);
    expect([a.in_reply_to_id, b.in_reply_to_id, c.in_reply_to_id]).toEqual([null, a.id, b.id]);
    expect(result).toEqual({ external_id: a.id, external_url: a.url });
    const keys = server.postRequests.slice(-3).map((p) => p.headers["idempotency-key"]);
    expect(keys).toEqual([await idempotencyKey(r.deliveryKey, 0), await idempotencyKey(r.deliveryKey, 1), await idempotencyKey(r.deliveryKey, 2)]);
    expect(new Set(keys).size).toBe(3);
    expect(progress.calls.map(([p, ref]) => [p, ref.id])).toEqual([
      [0, a.id],
      [1, b.id],
      [2, c.id],
    ]);
  });

  it("a repeated POST with the same Idempotency-Key returns the same status: a retry posts nothing new", async () => {
    const me = server.addAccount("bob");
    const r = rendition(["only once", "and its reply"]);
    const first = recordingProgress();
    await mastodonAdapter.publish(account(server, me), r, first);
    const second = recordingProgress();
    await mastodonAdapter.publish(account(server, me), r, second);
    expect(server.statusesOf(me.id)).toHaveLength(2);
    expect(second.calls.map(([, ref]) => ref.id)).toEqual(first.calls.map(([, ref]) => ref.id));
  });

  it("500 twice then 200: retryable failures, then one status", async () => {
    const me = server.addAccount("carol");
    const r = rendition(["flaky server"]);
    server.failNext(2, 500);
    for (let i = 0; i < 2; i++) {
      expect((await providerFailure(mastodonAdapter.publish(account(server, me), r, recordingProgress()))).info).toMatchObject({
        kind: "unavailable",
        httpStatus: 500,
        retryable: true,
      });
    }
    await mastodonAdapter.publish(account(server, me), r, recordingProgress());
    expect(server.statusesOf(me.id)).toHaveLength(1);
  });

  it("classifies 400 and 422 (not retryable), 429 with Retry-After, 401 (authentication)", async () => {
    const me = server.addAccount("dave");
    server.failNext(1, 400);
    expect((await providerFailure(mastodonAdapter.publish(account(server, me), rendition(["x"]), recordingProgress()))).info).toMatchObject({
      kind: "validation",
      httpStatus: 400,
      retryable: false,
    });
    server.failNext(1, 429, { retryAfter: 30 });
    const limited = await providerFailure(mastodonAdapter.publish(account(server, me), rendition(["x"]), recordingProgress()));
    expect(limited.info).toMatchObject({ kind: "rate_limited", retryable: true });
    expect(Math.round((limited.info.retryAt!.getTime() - Date.now()) / 1000)).toBeGreaterThan(25);
    const unauthorised = await providerFailure(
      mastodonAdapter.publish(account(server, { id: me.id, token: "revoked" }), rendition(["x"]), recordingProgress()),
    );
    expect(unauthorised.info).toMatchObject({ kind: "authentication", httpStatus: 401, retryable: false });
    expect(unauthorised.message).toContain("The access token is invalid");
  });

  it("a server that stores the status but never answers: timeout with outcome unknown; reconcile finds the post", async () => {
    const me = server.addAccount("erin");
    const r = rendition(["lost answer", "the reply"]);
    server.hangNext(1);
    const { providerFetch } = await import("../lib/providers/http");
    // The adapter's own path with a short timeout: the POST is stored, the answer never comes.
    const err = await providerFailure(
      providerFetch(`${server.url}/api/v1/statuses`, {
        method: "POST",
        headers: { authorization: `Bearer ${me.token}`, "content-type": "application/json", "idempotency-key": await idempotencyKey(r.deliveryKey, 0) },
        body: JSON.stringify({ status: "lost answer" }),
        allowPrivateUrls: true,
        timeoutMs: 300,
        mutating: true,
      }),
    );
    expect(err.info).toMatchObject({ kind: "network", code: "timeout", retryable: true, outcomeUnknown: true });
    expect(server.statusesOf(me.id)).toHaveLength(1);
    const found = await mastodonAdapter.reconcile(account(server, me), r);
    expect([...found.keys()]).toEqual([0]);
    // Publishing the rest continues the thread from what was found: two statuses in all.
    await mastodonAdapter.publish(account(server, me), r, recordingProgress(found));
    const [a, b] = server.statusesOf(me.id);
    expect(server.statusesOf(me.id)).toHaveLength(2);
    expect(b.in_reply_to_id).toBe(a.id);
  });

  it("text limit: 500 by default, URLs count 23; the instance's own limit when it announces more", async () => {
    const me = server.addAccount("frank");
    const url = `https://example.com/${"long-path/".repeat(20)}`;
    expect(mastodonLength(`${"a".repeat(477)}${url}`)).toBe(500);
    expect(mastodonLength("hi @someone@example.social")).toBe("hi @someone".length);
    await mastodonAdapter.publish(account(server, me), rendition([`${"a".repeat(477)}${url}`]), recordingProgress());
    const err = await providerFailure(mastodonAdapter.publish(account(server, me), rendition(["b".repeat(501)]), recordingProgress()));
    expect(err.info).toMatchObject({ kind: "validation", code: "text_too_long", retryable: false });
    // A server announcing 1000 takes 800.
    const other = big.addAccount("gina");
    await mastodonAdapter.publish(account(big, other), rendition(["c".repeat(800)]), recordingProgress());
    expect(big.statusesOf(other.id)).toHaveLength(1);
    expect(mastodonAdapter.textLimit({ instanceUrl: big.url }, 1000)).toBe(1000);
    expect(mastodonAdapter.textLimit({ instanceUrl: server.url }, null)).toBe(500);
  });

  it("readProfile: verify_credentials, the instance's limit and its software from NodeInfo (v1 fallback)", async () => {
    const me = big.addAccount("hana", { bot: true });
    expect(await mastodonAdapter.readProfile(account(big, me, { externalAccountId: null }))).toEqual({
      username: `hana@${new URL(big.url).host}`,
      avatar_url: `${big.url}/avatars/${me.id}.png`,
      external_account_id: me.id,
      fediverse_software: "akkoma",
      instance_url: big.url,
      text_limit: 1000,
      account_kind: "bot",
    });
    const ancient = old.addAccount("ivan");
    expect(await mastodonAdapter.readProfile(account(old, ancient))).toMatchObject({ fediverse_software: "mastodon", text_limit: 500, instance_url: old.url });
    expect(softwareFromVersion("2.7.2 (compatible; Pleroma 2.5.0)")).toBe("pleroma");
  });

  it("readMessages: mentions and replies from notifications, newest first", async () => {
    const me = server.addAccount("jane");
    const fan = server.addAccount("fan");
    const posted = recordingProgress();
    await mastodonAdapter.publish(account(server, me), rendition(["my post"]), posted);
    server.mention(fan.id, me.id, "hello there");
    server.mention(fan.id, me.id, "nice post", posted.calls[0][1].id);
    const messages = await mastodonAdapter.readMessages!(account(server, me), {});
    expect(messages).toEqual([
      expect.objectContaining({ kind: "reply", author_handle: "fan", text: "@jane nice post", in_reply_to_external_id: posted.calls[0][1].id }),
      expect.objectContaining({ kind: "mention", author_handle: "fan", text: "@jane hello there", in_reply_to_external_id: null }),
    ]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blueskyAdapter, linkFacets, recordKey } from "../lib/platforms/bluesky/adapter";
import { forgetSessions } from "../lib/platforms/bluesky/xrpc";
import { graphemeLength } from "../lib/providers/text";
import { accountContext, recordingProgress, rendition, providerFailure } from "./peers/adapter-context";
import { startPds, type PdsAccount, type PdsPeer } from "./peers/bluesky-pds";

/** The Bluesky adapter against a REAL PDS (@atproto/pds with @did-plc/server) started on loopback. */

let pds: PdsPeer;
let alice: PdsAccount;

beforeAll(async () => {
  pds = await startPds();
  alice = await pds.createAccount("alice");
}, 90_000);
afterAll(async () => {
  await pds?.stop();
});

const account = (who: PdsAccount = alice, password = who.appPassword) =>
  accountContext({ platform: "bluesky", instanceUrl: pds.url, credentials: { identifier: who.handle, app_password: password } });

describe("bluesky adapter against a real PDS", () => {
  it("publishes a three-segment thread that reads back as a reply chain (root and parent refs)", async () => {
    const r = rendition(["One: the start of a thread https://example.com/a-link", "Two: the middle", "Three: the end"]);
    const progress = recordingProgress();
    const result = await blueskyAdapter.publish(account(), r, progress);
    expect(progress.calls.map(([p]) => p)).toEqual([0, 1, 2]);
    const [first, second, third] = progress.calls.map(([, ref]) => ref);
    expect(result.external_id).toBe(first.id);
    expect(result.external_url).toBe(`https://bsky.app/profile/${alice.handle}/post/${first.id.split("/").pop()}`);

    // Read back through com.atproto.repo.getRecord, independently of the adapter.
    const read = async (uri: string) =>
      (await pds.get("com.atproto.repo.getRecord", { repo: alice.did, collection: "app.bsky.feed.post", rkey: uri.split("/").pop()! })).body;
    const [a, b, c] = await Promise.all([read(first.id), read(second.id), read(third.id)]);
    expect(a.value.text).toBe("One: the start of a thread https://example.com/a-link");
    expect(a.value.reply).toBeUndefined();
    expect(b.value.reply).toEqual({ root: { uri: a.uri, cid: a.cid }, parent: { uri: a.uri, cid: a.cid } });
    expect(c.value.reply).toEqual({ root: { uri: a.uri, cid: a.cid }, parent: { uri: b.uri, cid: b.cid } });
    expect([a.cid, b.cid, c.cid]).toEqual([first.cid, second.cid, third.cid]);
    // The URL became a link facet with UTF-8 byte offsets.
    expect(a.value.facets).toEqual([
      { index: { byteStart: 27, byteEnd: 53 }, features: [{ $type: "app.bsky.richtext.facet#link", uri: "https://example.com/a-link" }] },
    ]);
    // Each record's key is the one derived from the delivery key and position.
    expect(first.id.split("/").pop()).toBe(await recordKey(r.deliveryKey, 0));
    expect(third.id.split("/").pop()).toBe(await recordKey(r.deliveryKey, 2));
  });

  it("never twice: publishing the same rendition again creates no second record, even with nothing recorded", async () => {
    const bob = await pds.createAccount("bob");
    const r = rendition(["retry one", "retry two"]);
    await blueskyAdapter.publish(account(bob), r, recordingProgress());
    expect(await pds.listPosts(bob.did)).toHaveLength(2);
    // A crash lost what the pipeline had recorded: the retry starts with an empty progress.
    const again = recordingProgress();
    await blueskyAdapter.publish(account(bob), r, again);
    expect(await pds.listPosts(bob.did)).toHaveLength(2);
    expect(again.calls.map(([p]) => p)).toEqual([0, 1]);
    // A retry of only the second segment (the first recorded) also finds it instead of posting.
    const partial = recordingProgress(new Map([[0, again.calls[0][1]]]));
    await blueskyAdapter.publish(account(bob), r, partial);
    expect(await pds.listPosts(bob.did)).toHaveLength(2);
    // reconcile reports both as posted, with the refs the pipeline stores.
    const found = await blueskyAdapter.reconcile(account(bob), r);
    expect([...found.keys()]).toEqual([0, 1]);
    expect(found.get(1)).toEqual(again.calls[1][1]);
  });

  it("reconcile of a rendition never sent finds nothing; a partly posted thread is completed, not restarted", async () => {
    const carol = await pds.createAccount("carol");
    const r = rendition(["part one", "part two", "part three"]);
    expect((await blueskyAdapter.reconcile(account(carol), r)).size).toBe(0);
    // Only the first segment made it (the rest of the rendition cut off).
    await blueskyAdapter.publish(account(carol), { ...r, segments: r.segments.slice(0, 1) }, recordingProgress());
    const found = await blueskyAdapter.reconcile(account(carol), r);
    expect([...found.keys()]).toEqual([0]);
    await blueskyAdapter.publish(account(carol), r, recordingProgress(found));
    const posts = await pds.listPosts(carol.did);
    expect(posts).toHaveLength(3);
    const root = posts.find((p) => !p.value.reply)!;
    expect(posts.filter((p) => p.value.reply?.root?.uri === root.uri)).toHaveLength(2);
  });

  it("counts graphemes against 300: 300 emoji-heavy graphemes pass, 301 are refused before sending", async () => {
    const dave = await pds.createAccount("dave");
    const emoji = ["👍🏽", "👨‍👩‍👧", "🇫🇷", "é", "😀"];
    const text = Array.from({ length: 300 }, (_, i) => emoji[i % emoji.length]).join("");
    expect(graphemeLength(text)).toBe(300);
    expect(text.length).toBeGreaterThan(900); // far more UTF-16 units than graphemes
    await blueskyAdapter.publish(account(dave), rendition([text]), recordingProgress());
    const posts = await pds.listPosts(dave.did);
    expect(posts.map((p) => p.value.text)).toEqual([text]);

    const err = await providerFailure(blueskyAdapter.publish(account(dave), rendition(["ok", `${text}x`]), recordingProgress()));
    expect(err.info).toMatchObject({ kind: "validation", code: "text_too_long", retryable: false });
    expect(err.message).toContain("301 graphemes");
    // Nothing of that thread was posted: not even its valid first segment.
    expect(await pds.listPosts(dave.did)).toHaveLength(1);
    expect(blueskyAdapter.measure(text)).toBe(300);
    expect(blueskyAdapter.textLimit({ instanceUrl: pds.url })).toBe(300);
  });

  it("a wrong app password is an authentication error, not retryable", async () => {
    forgetSessions();
    const err = await providerFailure(blueskyAdapter.readProfile(account(alice, "aaaa-bbbb-cccc-dddd")));
    expect(err.info).toMatchObject({ kind: "authentication", code: "AuthenticationRequired", httpStatus: 401, retryable: false });
  });

  it("readProfile: handle and DID from the session; the avatar from the repository when no AppView answers", async () => {
    const profile = await blueskyAdapter.readProfile(account());
    expect(profile).toMatchObject({ username: alice.handle, external_account_id: alice.did, instance_url: pds.url, text_limit: 300, avatar_url: null });
  });

  it("readMessages needs an AppView; this PDS has none, and says so as a non-retryable error", async () => {
    const err = await providerFailure(blueskyAdapter.readMessages!(account(), {}));
    expect(err.info).toMatchObject({ kind: "configuration", code: "appview_unavailable", retryable: false });
  });

  it("record keys are valid TIDs, stable per (delivery key, position), different across them", async () => {
    const k = await recordKey("dlv_1", 0);
    expect(k).toMatch(/^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/);
    expect(await recordKey("dlv_1", 0)).toBe(k);
    expect(await recordKey("dlv_1", 1)).not.toBe(k);
    expect(await recordKey("dlv_2", 0)).not.toBe(k);
  });

  it("link facets index UTF-8 bytes, after multi-byte text", () => {
    const text = "café ✨ see https://example.com/x.";
    const [facet] = linkFacets(text);
    const bytes = new TextEncoder().encode(text);
    expect(new TextDecoder().decode(bytes.slice(facet.index.byteStart, facet.index.byteEnd))).toBe("https://example.com/x");
  });
});

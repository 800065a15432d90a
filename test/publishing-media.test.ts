import { createHash, createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renditions } from "../db/schema";
import type { Env } from "../lib/env";
import { PLATFORM_MEDIA_URL_TTL_SECONDS, signedMediaUrl, verifyMediaSignature, WEBHOOK_MEDIA_URL_TTL_SECONDS } from "../lib/media/signed-url";
import { mediaProblems, type MediaFacts } from "../lib/publishing/media-rules";
import { ensureQueues } from "../local/services/sqs";
import { env, newUser, newWorkspace, slugOf, withDb } from "./helpers/harness";
import { call, fixture, insertMediaRows, startMediaStorage, upload, type MediaStorage } from "./helpers/media";
import { runPipeline } from "./helpers/pipeline";
import { newAccount } from "./helpers/publishing";
import { serveGateway, type ServedGateway } from "./helpers/serve-gateway";
import { startPds, type PdsPeer } from "./peers/bluesky-pds";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

const image = (size = 1000): MediaFacts => ({ mediaType: "image", mimeType: "image/png", size });
const audio: MediaFacts = { mediaType: "audio", mimeType: "audio/mpeg", size: 2000 };
const video: MediaFacts = { mediaType: "video", mimeType: "video/mp4", size: 8000 };

describe("media rules per platform (pure)", () => {
  it("Bluesky: up to 4 images of at most 1 MB; no video or audio", () => {
    expect(mediaProblems(["bluesky"], [image(), image(), image(), image()])).toEqual([]);
    expect(
      mediaProblems(
        ["bluesky"],
        Array.from({ length: 5 }, () => image()),
      ),
    ).toEqual([{ field: "media_ids", message: "A Bluesky post carries at most 4 images; 5 are attached" }]);
    expect(mediaProblems(["bluesky"], [image(), audio])).toEqual([
      { field: "media_ids[1]", message: expect.stringContaining("images only; this item is audio") },
    ]);
    expect(mediaProblems(["bluesky"], [video])).toEqual([{ field: "media_ids[0]", message: expect.stringContaining("this item is video") }]);
    expect(mediaProblems(["bluesky"], [image(1_000_000), image(1_000_001)])).toEqual([
      { field: "media_ids[1]", message: expect.stringContaining("at most 1 MB") },
    ]);
  });

  it("Mastodon: up to 4 attachments, or one video or audio alone", () => {
    expect(mediaProblems(["mastodon"], [image(), image(), image(), image()])).toEqual([]);
    expect(mediaProblems(["mastodon"], [video])).toEqual([]);
    expect(mediaProblems(["mastodon"], [audio])).toEqual([]);
    expect(
      mediaProblems(
        ["mastodon"],
        Array.from({ length: 5 }, () => image()),
      ),
    ).toEqual([{ field: "media_ids", message: expect.stringContaining("at most 4 attachments") }]);
    expect(mediaProblems(["mastodon"], [image(), video])).toEqual([{ field: "media_ids", message: expect.stringContaining("a single video or audio") }]);
  });

  it("webhooks take anything; several platforms report each, once per platform", () => {
    expect(mediaProblems(["webhook"], [video, audio, ...Array.from({ length: 9 }, () => image())])).toEqual([]);
    expect(mediaProblems([], [audio])).toEqual([]);
    const both = mediaProblems(["bluesky", "mastodon", "bluesky", "webhook"], [image(), audio]);
    expect(both.map((p) => p.field)).toEqual(["media_ids[1]", "media_ids"]);
    expect(both[0].message).toMatch(/^Bluesky/);
    expect(both[1].message).toMatch(/^A Mastodon status/);
  });
});

describe("signed media URLs (pure)", () => {
  const keyEnv = { INSTANCE_SECRET_KEY: "a-test-instance-secret-of-some-length" };
  const parts = (url: string) => {
    const u = new URL(url);
    return { path: u.pathname, expires: u.searchParams.get("expires")!, signature: u.searchParams.get("signature")! };
  };

  it("verifies its own signature for that item only, until it expires", async () => {
    const now = Date.UTC(2026, 0, 1, 12, 31);
    const url = await signedMediaUrl(keyEnv, "https://herald.example/", "med_abc", 3600, now);
    const { path, expires, signature } = parts(url);
    expect(path).toBe("/media/med_abc/file");
    expect(url.startsWith("https://herald.example/media/med_abc/file?expires=")).toBe(true);
    // Rounded up to a sixth of the ttl: valid for between the ttl and 7/6 of it.
    expect(Number(expires) * 1000 - now).toBeGreaterThanOrEqual(3600_000);
    expect(Number(expires) * 1000 - now).toBeLessThanOrEqual(4200_000);
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Attempts a minute apart sign the same URL, so a retried webhook carries the same body.
    expect(await signedMediaUrl(keyEnv, "https://herald.example", "med_abc", 3600, now + 60_000)).toBe(url);

    expect(await verifyMediaSignature(keyEnv, "med_abc", expires, signature, now)).toBe(true);
    expect(await verifyMediaSignature(keyEnv, "med_abd", expires, signature, now)).toBe(false);
    expect(await verifyMediaSignature(keyEnv, "med_abc", String(Number(expires) + 3600), signature, now)).toBe(false);
    const flipped = (signature[0] === "A" ? "B" : "A") + signature.slice(1);
    expect(await verifyMediaSignature(keyEnv, "med_abc", expires, flipped, now)).toBe(false);
    // The last character carries 2 unused bits: its twin spelling decodes to the same MAC and is refused too.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const twin = signature.slice(0, -1) + alphabet[alphabet.indexOf(signature.at(-1)!) ^ 1];
    expect(await verifyMediaSignature(keyEnv, "med_abc", expires, twin, now)).toBe(false);
    expect(await verifyMediaSignature({ INSTANCE_SECRET_KEY: "another-instance-secret-entirely" }, "med_abc", expires, signature, now)).toBe(false);
    expect(await verifyMediaSignature({}, "med_abc", expires, signature, now)).toBe(false);
    expect(await verifyMediaSignature(keyEnv, "med_abc", expires, signature, Number(expires) * 1000)).toBe(false);
    for (const [e, s] of [
      [undefined, signature],
      [expires, undefined],
      ["0" + expires, signature],
      ["12abc", signature],
      [expires, signature + "A"],
      [expires, ""],
    ]) {
      expect(await verifyMediaSignature(keyEnv, "med_abc", e, s, now)).toBe(false);
    }
  });

  it("defaults to minutes (what a platform fetches during one attempt)", async () => {
    const { expires } = parts(await signedMediaUrl(keyEnv, "http://h", "med_x"));
    const left = Number(expires) - Date.now() / 1000;
    expect(PLATFORM_MEDIA_URL_TTL_SECONDS).toBeLessThanOrEqual(3600);
    expect(left).toBeGreaterThan(PLATFORM_MEDIA_URL_TTL_SECONDS - 5);
    expect(left).toBeLessThanOrEqual((PLATFORM_MEDIA_URL_TTL_SECONDS * 7) / 6);
  });

  it("is keyed by its own derivation of INSTANCE_SECRET_KEY, not the secrets-at-rest key", async () => {
    const { expires, signature } = parts(await signedMediaUrl(keyEnv, "http://h", "med_abc"));
    const mac = (label: string) => {
      const key = createHash("sha256").update(`${label}:${keyEnv.INSTANCE_SECRET_KEY}`).digest();
      return createHmac("sha256", key).update(`media-file:med_abc:${expires}`).digest("base64url");
    };
    expect(mac("herald-media-url-v1")).toBe(signature);
    expect(mac("herald-secrets-v1")).not.toBe(signature);
  });
});

let storage: MediaStorage;
let served: ServedGateway;
let pds: PdsPeer;
let receiver: WebhookPeer;
let e: Env;

beforeAll(async () => {
  [pds, receiver, storage] = await Promise.all([startPds(), startWebhookReceiver(), startMediaStorage()]);
  // Queues of this file's own, so that only this file's consumer (with this env) delivers its publications.
  const queues = await ensureQueues(env, `media-${Date.now()}-`);
  served = await serveGateway({ ...storage.env, ...queues } as Env);
  e = served.env;
}, 60_000);
afterAll(async () => {
  await Promise.all([pds?.stop(), receiver?.stop(), served?.stop()]);
  await storage?.dispose();
});

const req = <T = any>(method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call<T>(e, method, path, opts);

async function setup() {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const png = fixture("image-40x30.png");
  const jpg = fixture("photo-32x48.jpg");
  const first = await upload(e, owner.token, { workspaceId: ws, bytes: png, filename: "card.png", altText: "A test card" });
  const second = await upload(e, owner.token, { workspaceId: ws, bytes: jpg, filename: "photo.jpg" });
  expect(first.status, first.text).toBe(201);
  expect(second.status, second.text).toBe(201);
  return { owner, ws, png, jpg, images: [first.body.id as string, second.body.id as string] };
}

async function createPublication(token: string, body: Record<string, unknown>) {
  return req("POST", "/publications", { token, json: { source_text: "Look at these.", ...body } });
}

/** GET without any token, over real HTTP (as a platform or receiver would fetch it). */
const fetchPlain = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
};

describe("publishing with media", () => {
  it("webhook and Bluesky get the media on the opening post, through signed URLs that need no token", async () => {
    const { owner, ws, png, jpg, images } = await setup();
    const who = await pds.createAccount();
    const sky = await newAccount(ws, owner.id, "bluesky", {
      instanceUrl: pds.url,
      username: who.handle,
      credentials: { identifier: who.handle, app_password: who.appPassword },
    });
    const hook = await newAccount(ws, owner.id, "webhook", { url: receiver.url });
    const two = [{ body: "Opening post with the pictures." }, { body: "A reply without them." }];
    const created = await createPublication(owner.token, {
      workspace_id: ws,
      media_ids: images,
      destinations: [
        { social_account_id: hook, segments: two },
        { social_account_id: sky, segments: two },
      ],
    });
    expect(created.status, created.text).toBe(201);
    // Responses show what is delivered: the media on segment 0 of each rendition, none after.
    expect(created.body.media.map((m: any) => m.id)).toEqual(images);
    for (const r of created.body.renditions) {
      expect(r.segments[0].media.map((m: any) => m.id)).toEqual(images);
      expect(r.segments[1].media).toEqual([]);
      expect(r.segments.every((s: any) => s.media_inherited === true)).toBe(true);
    }

    const started = await req("POST", `/publications/${created.body.id}/publish-now`, { token: owner.token, json: { expected_revision: 1 } });
    expect(started.status, started.text).toBe(202);
    expect(await runPipeline(created.body.id, { env: e, timeoutMs: 30_000 })).toBe("published");

    // The webhook receiver: segments[0].media with signed URLs, segments[1] without.
    const [delivery] = receiver.deliveries.filter((d) => d.body?.publication_id === created.body.id);
    const [opening, reply] = delivery.body.segments;
    expect(reply.media).toEqual([]);
    expect(opening.media).toEqual([
      {
        url: expect.stringMatching(new RegExp(`^${served.url}/media/${images[0]}/file\\?expires=\\d+&signature=[\\w-]{43}$`)),
        mime_type: "image/png",
        alt_text: "A test card",
      },
      { url: expect.stringContaining(`/media/${images[1]}/file?expires=`), mime_type: "image/jpeg", alt_text: null },
    ]);
    const got = await fetchPlain(opening.media[0].url);
    expect(got.status).toBe(200);
    expect(got.bytes).toEqual(png);
    expect(got.headers.get("content-type")).toBe("image/png");
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(got.headers.get("cache-control") ?? "")?.[1]);
    // A webhook receiver's URLs last a day (it may fetch later); a platform's, minutes.
    expect(maxAge).toBeGreaterThan(WEBHOOK_MEDIA_URL_TTL_SECONDS - 60);
    expect(maxAge).toBeLessThanOrEqual((WEBHOOK_MEDIA_URL_TTL_SECONDS * 7) / 6);
    const ranged = await fetchPlain(opening.media[1].url, { range: "bytes=0-9" });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("content-range")).toBe(`bytes 0-9/${jpg.length}`);
    expect(ranged.bytes).toEqual(jpg.slice(0, 10));

    // Bluesky: the opening post has an images embed whose blobs the PDS serves; the reply has none.
    const posts = await pds.listPosts(who.did);
    expect(posts).toHaveLength(2);
    const first = posts.find((p) => p.value.text === two[0].body)!;
    const second = posts.find((p) => p.value.text === two[1].body)!;
    expect(second.value.embed).toBeUndefined();
    expect(first.value.embed.$type).toBe("app.bsky.embed.images");
    expect(first.value.embed.images.map((i: any) => [i.alt, i.image.mimeType])).toEqual([
      ["A test card", "image/png"],
      ["", "image/jpeg"],
    ]);
    for (const [i, bytes] of [png, jpg].entries()) {
      const blob = await fetchPlain(
        `${pds.url}/xrpc/com.atproto.sync.getBlob?did=${encodeURIComponent(who.did)}&cid=${first.value.embed.images[i].image.ref.$link}`,
      );
      expect(blob.status).toBe(200);
      expect(blob.bytes).toEqual(bytes);
    }
  }, 60_000);

  it("an altered, expired or foreign signature is 403 problem+json that tells nothing of the item; a token caller still works; a signature opens nothing else", async () => {
    const { owner, png, images } = await setup();
    const [id, other] = images;
    const good = new URL(await signedMediaUrl(e, served.url, id));
    const variant = (change: (u: URL) => void) => {
      const u = new URL(good);
      change(u);
      return u.toString();
    };
    const signature = good.searchParams.get("signature")!;
    const expires = good.searchParams.get("expires")!;
    const refused = [
      variant((u) => u.searchParams.set("signature", (signature[0] === "A" ? "B" : "A") + signature.slice(1))),
      variant((u) => u.searchParams.set("expires", String(Number(expires) + 3600))),
      variant((u) => u.searchParams.delete("expires")),
      variant((u) => u.searchParams.set("signature", "")),
      variant((u) => (u.pathname = `/media/${other}/file`)),
      await signedMediaUrl(e, served.url, id, -600),
      await signedMediaUrl({ INSTANCE_SECRET_KEY: "not-this-instance-secret-at-all" }, served.url, id),
      // An item that does not exist, with a signature that does not fit it: the same answer as for one that does.
      variant((u) => (u.pathname = "/media/med_doesnotexist0000000000/file")),
    ];
    const answers = new Set<string>();
    for (const url of refused) {
      const res = await fetchPlain(url);
      expect(res.status, url).toBe(403);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      const body = new TextDecoder().decode(res.bytes);
      expect(slugOf(JSON.parse(body))).toBe("forbidden");
      expect(res.headers.get("content-length") ?? String(res.bytes.length)).not.toBe(String(png.length));
      for (const leak of [id, other, "image/png", "trash"]) expect(body.includes(leak), `${url} answer names ${leak}`).toBe(false);
      answers.add(body.replace(/"instance":"[^"]*"/, "").replace(/"request_id":"[^"]*"/, ""));
    }
    expect(answers.size, [...answers].join("\n")).toBe(1);
    // A valid token does not rescue an invalid signature: a signed request is judged by its signature.
    expect((await fetchPlain(refused[0], { authorization: `Bearer ${owner.token}` })).status).toBe(403);
    // The signature is for the file only.
    expect((await fetchPlain(`${served.url}/media/${id}?expires=${expires}&signature=${signature}`)).status).toBe(401);
    expect((await fetchPlain(`${served.url}/media/${id}/file`)).status).toBe(401);

    const viaToken = await req("GET", `/media/${id}/file`, { token: owner.token });
    expect(viaToken.status).toBe(200);
    expect(viaToken.bytes).toEqual(png);
    expect(viaToken.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
    const outsider = await newUser();
    expect((await req("GET", `/media/${id}/file`, { token: outsider.token })).status).toBe(404);
    expect((await fetchPlain(good.toString())).status).toBe(200);

    // In the trash: gone for signed access (members with a token still see it, as before).
    expect((await req("POST", `/media/${id}/trash`, { token: owner.token })).status).toBe(200);
    const trashed = await fetchPlain(good.toString());
    expect(trashed.status).toBe(404);
    expect(slugOf(JSON.parse(new TextDecoder().decode(trashed.bytes)))).toBe("not-found");
    expect((await req("GET", `/media/${id}/file`, { token: owner.token })).status).toBe(200);
  });

  it("422 naming body.media_ids for media a destination can never take, at create and at update", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const five = await insertMediaRows(
      ws,
      Array.from({ length: 5 }, () => ({})),
    );
    const [sound] = await insertMediaRows(ws, [{ mediaType: "audio", mimeType: "audio/mpeg", width: null, height: null, durationMs: 1000 }]);
    const who = await pds.createAccount();
    const sky = await newAccount(ws, owner.id, "bluesky", {
      instanceUrl: pds.url,
      username: who.handle,
      credentials: { identifier: who.handle, app_password: who.appPassword },
    });
    const hook = await newAccount(ws, owner.id, "webhook", { url: receiver.url });

    const tooMany = await createPublication(owner.token, {
      workspace_id: ws,
      media_ids: five,
      destinations: [{ social_account_id: hook }, { social_account_id: sky }],
    });
    expect(tooMany.status, tooMany.text).toBe(422);
    expect(slugOf(tooMany.body)).toBe("validation-error");
    expect(tooMany.body.errors).toEqual([{ location: "body.media_ids", message: "A Bluesky post carries at most 4 images; 5 are attached" }]);
    const withAudio = await createPublication(owner.token, { workspace_id: ws, media_ids: [five[0], sound], destinations: [{ social_account_id: sky }] });
    expect(withAudio.status).toBe(422);
    expect(withAudio.body.errors).toEqual([{ location: "body.media_ids[1]", message: expect.stringContaining("images only") }]);

    // A webhook takes them all; adding Bluesky later, or five images later, is refused.
    const ok = await createPublication(owner.token, { workspace_id: ws, media_ids: five, destinations: [{ social_account_id: hook }] });
    expect(ok.status, ok.text).toBe(201);
    const addSky = await req("PUT", `/publications/${ok.body.id}`, {
      token: owner.token,
      json: { expected_revision: 1, destinations: [{ social_account_id: hook }, { social_account_id: sky }] },
    });
    expect(addSky.status).toBe(422);
    expect(addSky.body.errors[0].location).toBe("body.media_ids");
    const skyOnly = await createPublication(owner.token, { workspace_id: ws, media_ids: five.slice(0, 4), destinations: [{ social_account_id: sky }] });
    expect(skyOnly.status, skyOnly.text).toBe(201);
    const fifth = await req("PUT", `/publications/${skyOnly.body.id}`, { token: owner.token, json: { expected_revision: 1, media_ids: five } });
    expect(fifth.status).toBe(422);
    expect(fifth.body.errors[0].location).toBe("body.media_ids");
    // Nothing changed.
    expect((await req("GET", `/publications/${skyOnly.body.id}`, { token: owner.token })).body).toMatchObject({
      revision: 1,
      media: five.slice(0, 4).map((id) => ({ id })),
    });
  });

  it("an item trashed after it was attached fails the delivery, telling the user to restore or remove it", async () => {
    const { owner, ws, images } = await setup();
    const hook = await newAccount(ws, owner.id, "webhook", { url: receiver.url });
    const created = await createPublication(owner.token, { workspace_id: ws, media_ids: [images[0]], destinations: [{ social_account_id: hook }] });
    expect(created.status, created.text).toBe(201);
    expect((await req("POST", `/media/${images[0]}/trash`, { token: owner.token })).status).toBe(200);
    expect((await req("POST", `/publications/${created.body.id}/publish-now`, { token: owner.token, json: { expected_revision: 1 } })).status).toBe(202);
    expect(await runPipeline(created.body.id, { env: e, timeoutMs: 30_000 })).toBe("failed");

    const rendition = (await req("GET", `/publications/${created.body.id}`, { token: owner.token })).body.renditions[0];
    expect(rendition).toMatchObject({ status: "failed", error_code: "media_trashed", error_kind: "validation", error_retryable: false });
    expect(rendition.error_message).toContain(images[0]);
    expect(rendition.error_message).toMatch(/restore it, or remove it from the publication/);
    expect(receiver.attempts.filter((d) => d.body?.publication_id === created.body.id)).toEqual([]);
    const [row] = await withDb((db) => db.select().from(renditions).where(eq(renditions.publicationId, created.body.id)));
    expect(row.attemptCount).toBe(1);
  });
});

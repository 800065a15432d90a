import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { drainQueue } from "../../lib/jobs/consumer";
import { relayOutbox } from "../../lib/jobs/outbox";
import { publish } from "../../queues/publish";
import { newUser, newWorkspace, withDb } from "../helpers/harness";
import { fixture, upload } from "../helpers/media";
import { makeDueNow } from "../helpers/pipeline";
import { writeBigMp4 } from "../peers/range-file-host";
import { clientWithEnv, expectData, type Schemas } from "../helpers/typed";
import type { SuiteContext, Workspace } from "./driver";

/** Herald as the cases drive it: through its API and its real delivery pipeline (outbox relay → SQS → publish consumer). */

export type Publication = Schemas["PublicationResponse"];
export type Rendition = Publication["renditions"][number];

export async function newCaseWorkspace(suite: SuiteContext): Promise<Workspace> {
  const owner = await newUser();
  const workspaceId = await newWorkspace(owner);
  return { client: clientWithEnv(owner.token, suite.env), token: owner.token, userId: owner.id, workspaceId };
}

/** POST /accounts through the typed client; the connected account's id. */
export async function connectAccount(ws: Workspace, body: Omit<Schemas["CreateAccountRequest"], "workspace_id">): Promise<string> {
  const res = await ws.client.POST("/accounts", { body: { ...body, workspace_id: ws.workspaceId } });
  return expectData(res, 201).id;
}

export const readPublication = async (ws: Workspace, id: string) => expectData(await ws.client.GET("/publications/{id}", { params: { path: { id } } }));

/** A publication to one account, with these segments (and media), queued by publish-now. */
export async function publishSegments(ws: Workspace, accountId: string, bodies: string[], mediaIds: string[] = []): Promise<Publication> {
  const created = expectData(
    await ws.client.POST("/publications", {
      body: {
        workspace_id: ws.workspaceId,
        source_text: bodies.join("\n\n"),
        ...(mediaIds.length ? { media_ids: mediaIds } : {}),
        destinations: [{ social_account_id: accountId, segments: bodies.map((body) => ({ body })) }],
      },
    }),
    201,
  );
  const started = await ws.client.POST("/publications/{id}/publish-now", {
    params: { path: { id: created.id } },
    body: { expected_revision: created.revision },
  });
  expect(started.response.status, JSON.stringify(started.error)).toBe(202);
  return created;
}

/**
 * Runs the pipeline (relay the due publish jobs, drain the suite's publish queue) until `until` holds for
 * the publication as the API shows it.
 */
export async function pump(suite: SuiteContext, ws: Workspace, id: string, until: (p: Publication) => boolean, timeoutMs = 20_000): Promise<Publication> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await withDb((db) => relayOutbox(db, suite.env, { kinds: ["publication.publish"] }));
    await drainQueue(suite.env, publish, { waitSeconds: 0, budgetMs: 2000 });
    const now = await readPublication(ws, id);
    if (until(now)) return now;
    if (Date.now() > deadline) throw new Error(`publication ${id} still ${now.status} (rendition ${now.renditions[0]?.status}) after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every rendition ended, and the publication has converged (its settling is written after the last rendition's outcome). */
const terminal = (p: Publication) => p.status !== "publishing" && p.renditions.every((r) => ["published", "failed", "canceled"].includes(r.status));
const waiting = (p: Publication) => p.renditions.some((r) => r.status === "retrying" || r.status === "reconciling");
const attemptsOf = (p: Publication) => p.renditions.reduce((n, r) => n + (r.delivery.current_attempt_number ?? 0), 0);

/**
 * Delivers until every rendition has ended, letting retry and reconciliation times pass at once (the stored
 * due times move to now: no sleeping). At most `rounds` attempts after the first.
 */
export async function settle(suite: SuiteContext, ws: Workspace, id: string, rounds = 12): Promise<Publication> {
  let attempts = -1;
  for (let i = 0; ; i++) {
    const seen = attempts;
    const now = await pump(suite, ws, id, (p) => terminal(p) || (waiting(p) && attemptsOf(p) !== seen));
    if (terminal(now)) return now;
    if (i >= rounds) throw new Error(`publication ${id} did not settle in ${rounds} rounds (rendition ${now.renditions[0]?.status})`);
    attempts = attemptsOf(now);
    await makeDueNow(id);
  }
}

/** An image uploaded to the workspace's media library with alt text (POST /media, multipart). */
export async function uploadImage(suite: SuiteContext, ws: Workspace, altText: string) {
  const bytes = fixture("image-40x30.png");
  const res = await upload(suite.env, ws.token, { workspaceId: ws.workspaceId, bytes, filename: "conformance.png", altText });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id as string, bytes };
}

const CLIP = join(import.meta.dirname, "../fixtures/media/clip-64x48-12fps-2s.mp4");
/** A few MB: more than one read of a media URL, well under POST /media's limit (25 MiB by default). */
export const CONFORMANCE_VIDEO_BYTES = 3 * 1024 * 1024;
let madeVideo: Promise<Uint8Array> | undefined;

/**
 * An MP4 made by the test (once per run): the fixture clip followed by a `free` box of padding up to
 * CONFORMANCE_VIDEO_BYTES, a real, playable file of the size a platform uploads in ranges.
 */
function conformanceVideo(): Promise<Uint8Array> {
  madeVideo ??= (async () => {
    const file = join(mkdtempSync(join(tmpdir(), "herald-conformance-video-")), "conformance.mp4");
    await writeBigMp4(file, CLIP, CONFORMANCE_VIDEO_BYTES);
    return new Uint8Array(readFileSync(file));
  })();
  return madeVideo;
}

/** That video uploaded to the workspace's media library (POST /media), checked to be taken as an MP4 with a duration. */
export async function uploadVideo(suite: SuiteContext, ws: Workspace) {
  const bytes = await conformanceVideo();
  const res = await upload(suite.env, ws.token, { workspaceId: ws.workspaceId, bytes, filename: "conformance.mp4" });
  expect(res.status, res.text).toBe(201);
  expect(res.body).toMatchObject({ mime_type: "video/mp4", size: CONFORMANCE_VIDEO_BYTES, duration_ms: expect.any(Number) });
  expect(res.body.duration_ms).toBeGreaterThan(0);
  return { id: res.body.id as string, bytes };
}

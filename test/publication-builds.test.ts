import http from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { media, outboxJobs, providerCostEvents, publicationBuilds, socialAccounts } from "../db/schema";
import { modelFromSettings } from "../lib/builds/model";
import { runBuild } from "../lib/builds/run";
import { newId } from "../lib/ids";
import { graphemeLength } from "../lib/providers/text";
import { api, env, expectProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { startChatPeer } from "./peers/openai-chat";
import { buildGenerate } from "../queues/build-generate";
import { runBuildJob } from "./helpers/builds";
import { newAccount } from "./helpers/publishing";

/**
 * POST /publication-builds → outbox → SQS → queues/build-generate.ts → GET, list and commit, with real
 * Postgres and SQS. URL sources are read from a small local web server started here (any web page would do).
 */

let site: http.Server;
let siteUrl: string;
beforeAll(async () => {
  site = http.createServer((req, res) => {
    if (req.url === "/article") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(
        "<html><head><title>x</title><style>p{}</style></head><body><script>var secret=1;</script><h1>Launch notes</h1><p>Herald plans every destination at once.</p><p>In our trial, 42 teams cut their drafting time by half.</p></body></html>",
      );
    } else if (req.url === "/binary") {
      res.writeHead(200, { "content-type": "application/pdf" });
      res.end("%PDF-1.4");
    } else if (req.url === "/huge") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("Herald keeps going. ".repeat(50_000)); // 1 MB: read, then cut to what a build keeps
    } else if (req.url === "/enormous") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(3 * 1024 * 1024)); // over the 2 MiB a build reads
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("gone");
    }
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => site.close(() => r())));

async function setup() {
  const [owner, editor, viewer, outsider] = await Promise.all([newUser(), newUser(), newUser(), newUser()]);
  const ws = await newWorkspace(owner, [
    { id: editor.id, role: "editor" },
    { id: viewer.id, role: "viewer" },
  ]);
  const bluesky = await newAccount(ws, owner.id, "bluesky");
  const mastodon = await newAccount(ws, owner.id, "mastodon");
  await withDb((db) => db.update(socialAccounts).set({ textLimit: 1000 }).where(eq(socialAccounts.id, mastodon)));
  const hook = await newAccount(ws, owner.id, "webhook", { url: "http://127.0.0.1:9/hook" });
  return { owner, editor, viewer, outsider, ws, bluesky, mastodon, hook };
}

const NOTES =
  "Herald now plans a publication for every destination at once. The planner splits text within each platform's limit. In our trial, 42 teams cut their drafting time by half. Media keep their alt text.";

describe("POST /publication-builds", () => {
  it("queues a build recording its whole input, with the job in the outbox; the consumer completes it within every limit", async () => {
    const t = await setup();
    const voice = await api("POST", "/voice-profiles", {
      token: t.owner.token,
      json: {
        workspace_id: t.ws,
        name: "House",
        definition: { forbidden_phrases: ["game-changer"], identity_summary: "A calm team.", preferred_language: "en", traits: ["plain"] },
      },
    });
    expect(voice.status, voice.text).toBe(201);
    const res = await api("POST", "/publication-builds", {
      token: t.editor.token,
      json: {
        workspace_id: t.ws,
        idea: "Herald plans every destination at once.",
        sources: [
          { kind: "text", label: "Launch notes", text: NOTES },
          { kind: "text", text: "Internal: the trial ran in March.", publishable: false },
        ],
        destination_account_ids: [t.bluesky, t.mastodon, t.hook],
        direction: { audience: "small teams", outcome: "inform" },
      },
    });
    expect(res.status, res.text).toBe(202);
    const b = res.body;
    expect(b).toMatchObject({
      $schema: "http://localhost:8787/api/v1/schemas/Build.json",
      state: "queued",
      phase: "queued",
      workspace_id: t.ws,
      revision: 1,
      result: null,
      publication_id: null,
      error_code: null,
    });
    expect(b.id).toMatch(/^bld_/);
    expect(b.input.sources).toEqual([
      { id: "src_1", kind: "text", label: "Launch notes", mime_type: "text/plain", text: NOTES, publishable: true },
      { id: "src_2", kind: "text", label: "Text 2", mime_type: "text/plain", text: "Internal: the trial ran in March.", publishable: false },
    ]);
    expect(b.input.direction).toEqual({ angle: null, audience: "small teams", media_preference: null, outcome: "inform", tone_adjustment: null });
    const mastodon = b.input.destinations.find((d: { platform: string }) => d.platform === "mastodon");
    expect(mastodon.allowed_output_profiles.map((p: { text_limit: number }) => p.text_limit)).toEqual([1000, 1000]);
    expect(mastodon.allowed_output_profiles[0]).toMatchObject({ key: "mastodon.post", max_segments: 1, media_max_count: 4 });
    expect(mastodon.voice).toMatchObject({
      id: voice.body.id,
      name: "House",
      revision: 1,
      definition: { avoidances: ["game-changer"], identity: "A calm team.", language: "en" },
    });
    const jobs = await withDb((db) => db.select().from(outboxJobs).where(eq(outboxJobs.kind, "build.generate")));
    expect(jobs.some((j) => (j.payload as { build_id: string }).build_id === b.id)).toBe(true);

    // A later edit of the voice does not change what the build meant.
    await api("PUT", `/voice-profiles/${voice.body.id}`, {
      token: t.owner.token,
      json: { expected_revision: 1, name: "Renamed", definition: { identity_summary: "Loud." } },
    });

    expect(await runBuildJob(b.id)).toBe("completed");
    const got = await api("GET", `/publication-builds/${b.id}`, { token: t.viewer.token });
    expect(got.status, got.text).toBe(200);
    expect(got.body).toMatchObject({ state: "completed", phase: "done", revision: 2 });
    expect(got.body.input.destinations[1].voice.name).toBe("House");
    const result = got.body.result;
    expect(result.canonical_text).toContain("42 teams");
    expect(result.canonical_text).not.toContain("March");
    expect(result.destinations).toHaveLength(3);
    for (const d of result.destinations) {
      const limit = d.platform === "bluesky" ? 300 : d.platform === "mastodon" ? 1000 : Infinity;
      for (const s of d.segments) expect(graphemeLength(s.body)).toBeLessThanOrEqual(limit);
      for (const c of d.claims) expect(Array.isArray(c.source_refs)).toBe(true);
    }
    expect(result.direction.claims.find((c: { text: string }) => c.text.includes("42 teams"))).toMatchObject({ status: "supported", source_refs: ["src_1"] });
  });

  it("refuses ids of another workspace, missing content and low roles; hides other workspaces' builds", async () => {
    const t = await setup();
    const other = await setup();
    const foreignMedia = newId("med");
    await withDb((db) =>
      db.insert(media).values({ id: foreignMedia, workspaceId: other.ws, objectKey: `k/${foreignMedia}`, mimeType: "image/png", mediaType: "image", size: 10 }),
    );
    const otherVoice = await api("POST", "/voice-profiles", { token: other.owner.token, json: { workspace_id: other.ws, name: "Theirs", definition: {} } });
    const post = (json: object, token = t.editor.token) =>
      api("POST", "/publication-builds", { token, json: { workspace_id: t.ws, destination_account_ids: [t.bluesky], idea: "Hi.", ...json } });

    const foreignAccount = await post({ destination_account_ids: [t.bluesky, other.bluesky] });
    expectProblem(foreignAccount, 422, "validation-error");
    expect(foreignAccount.body.errors).toEqual([expect.objectContaining({ location: "body.destination_account_ids[1]" })]);
    expect((await post({ sources: [{ kind: "media", media_id: foreignMedia }] })).body.errors[0].location).toBe("body.sources[0].media_id");
    expect((await post({ voice_profile_id: otherVoice.body.id })).body.errors[0].location).toBe("body.voice_profile_id");
    expect((await post({ idea: undefined })).body.errors[0].location).toBe("body.idea");
    expect((await post({ sources: [{ kind: "url", url: "ftp://example.com/x" }] })).body.errors[0].location).toBe("body.sources[0].url");
    expect((await post({ sources: [{ kind: "text" }] })).body.errors[0].location).toBe("body.sources[0].text");
    expectProblem(await post({ destination_account_ids: [] }), 422, "validation-error");
    expectProblem(await post({ sources: [{ kind: "video" }] }), 422, "validation-error");
    expectProblem(await post({}, t.viewer.token), 403, "forbidden");
    expectProblem(await post({}, t.outsider.token), 404, "not-found");
    expect(await withDb((db) => db.select().from(publicationBuilds).where(eq(publicationBuilds.workspaceId, t.ws)))).toHaveLength(0);

    const theirs = await api("POST", "/publication-builds", {
      token: other.editor.token,
      json: { workspace_id: other.ws, destination_account_ids: [other.bluesky], idea: "Hi." },
    });
    expectProblem(await api("GET", `/publication-builds/${theirs.body.id}`, { token: t.owner.token }), 404, "not-found");
    expectProblem(await api("POST", `/publication-builds/${theirs.body.id}/commit`, { token: t.owner.token }), 404, "not-found");
    expectProblem(await api("GET", `/publication-builds?workspace_id=${other.ws}`, { token: t.owner.token }), 404, "not-found");
  });

  it("replays the same Idempotency-Key with the same body, refuses it with another body", async () => {
    const t = await setup();
    const json = { workspace_id: t.ws, destination_account_ids: [t.hook], idea: "Once." };
    const headers = { "idempotency-key": "build-once" };
    const first = await api("POST", "/publication-builds", { token: t.editor.token, json, headers });
    const again = await api("POST", "/publication-builds", { token: t.editor.token, json, headers });
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expectProblem(
      await api("POST", "/publication-builds", { token: t.editor.token, json: { ...json, idea: "Twice." }, headers }),
      422,
      "idempotency-key-reused",
    );
    expect(await withDb((db) => db.select().from(publicationBuilds).where(eq(publicationBuilds.workspaceId, t.ws)))).toHaveLength(1);
  });
});

describe("URL sources", () => {
  it("reads a page as text (scripts and styles dropped); an unreadable source is a review flag, not a failure", async () => {
    const t = await setup();
    const res = await api("POST", "/publication-builds", {
      token: t.editor.token,
      json: {
        workspace_id: t.ws,
        sources: [
          { kind: "url", url: `${siteUrl}/article` },
          { kind: "url", url: `${siteUrl}/missing` },
          { kind: "url", url: `${siteUrl}/binary` },
          { kind: "url", url: `${siteUrl}/huge` },
          { kind: "url", url: `${siteUrl}/enormous` },
        ],
        destination_account_ids: [t.bluesky],
      },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body.context_urls).toEqual([`${siteUrl}/article`, `${siteUrl}/missing`, `${siteUrl}/binary`, `${siteUrl}/huge`, `${siteUrl}/enormous`]);
    expect(await runBuildJob(res.body.id)).toBe("completed");
    const b = (await api("GET", `/publication-builds/${res.body.id}`, { token: t.editor.token })).body;
    expect(b.input.sources[0]).toMatchObject({ kind: "url", mime_type: "text/html", text: expect.stringContaining("42 teams") });
    expect(b.input.sources[0].text).not.toContain("secret");
    expect(b.input.sources[1].text).toBeNull();
    expect(b.input.sources[3].text.length).toBeLessThanOrEqual(100_000);
    const flags = b.result.review_flags.map((f: { field: string; message: string }) => `${f.field}: ${f.message}`).join("\n");
    expect(flags).toContain("sources.src_2: The source");
    expect(flags).toContain("answered 404");
    expect(flags).toContain("application/pdf");
    expect(flags).toContain("sources.src_4: Only the beginning");
    expect(flags).toMatch(/sources\.src_5: The source .* is larger than 2 MiB/);
    expect(b.result.sources.map((s: { id: string }) => s.id)).toEqual(["src_1", "src_2", "src_3", "src_4", "src_5"]);
  });

  it("fails with a code and the phase when no source can be read and there is no idea", async () => {
    const t = await setup();
    const res = await api("POST", "/publication-builds", {
      token: t.editor.token,
      json: { workspace_id: t.ws, sources: [{ kind: "url", url: `${siteUrl}/missing` }], destination_account_ids: [t.bluesky] },
    });
    expect(await runBuildJob(res.body.id)).toBe("failed");
    const b = (await api("GET", `/publication-builds/${res.body.id}`, { token: t.editor.token })).body;
    expect(b).toMatchObject({ state: "failed", phase: "reading_sources", error_code: "sources_unreadable", error_message: expect.stringContaining("404") });
  });
});

describe("GET /publication-builds and commit", () => {
  it("lists newest first with a cursor; commits a completed build exactly once; refuses one not completed", async () => {
    const t = await setup();
    const ids: string[] = [];
    for (const idea of ["First idea.", "Second idea.", "Third idea."]) {
      const res = await api("POST", "/publication-builds", {
        token: t.editor.token,
        json: { workspace_id: t.ws, idea, destination_account_ids: [t.bluesky, t.hook] },
      });
      ids.push(res.body.id);
    }
    const page = await api("GET", `/publication-builds?workspace_id=${t.ws}&limit=2`, { token: t.viewer.token });
    expect(page.status, page.text).toBe(200);
    expect(page.body.map((b: { id: string }) => b.id)).toEqual([ids[2], ids[1]]);
    const next = /<([^>]+)>; rel="next"/.exec(page.headers.get("link") ?? "")?.[1];
    const rest = await api("GET", new URL(next!).pathname + new URL(next!).search, { token: t.viewer.token });
    expect(rest.body.map((b: { id: string }) => b.id)).toEqual([ids[0]]);
    expectProblem(await api("GET", `/publication-builds?workspace_id=${t.ws}&cursor=forged`, { token: t.viewer.token }), 422, "validation-error");

    expectProblem(await api("POST", `/publication-builds/${ids[0]}/commit`, { token: t.editor.token }), 409, "not-editable");
    expect(await runBuildJob(ids[0])).toBe("completed");
    expectProblem(await api("POST", `/publication-builds/${ids[0]}/commit`, { token: t.viewer.token }), 403, "forbidden");
    const [first, second] = await Promise.all([
      api("POST", `/publication-builds/${ids[0]}/commit`, { token: t.editor.token }),
      api("POST", `/publication-builds/${ids[0]}/commit`, { token: t.editor.token }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 201]);
    expect(first.body.id).toBe(second.body.id);
    expect(first.body).toMatchObject({ $schema: expect.stringMatching(/PublicationResponse\.json$/), status: "draft", source_text: "First idea." });
    expect(first.body.renditions.map((r: { social_account_id: string }) => r.social_account_id).sort()).toEqual([t.bluesky, t.hook].sort());
    expect(first.body.renditions[0].segments[0].body).toBe("First idea.");
    const after = (await api("GET", `/publication-builds/${ids[0]}`, { token: t.viewer.token })).body;
    expect(after.publication_id).toBe(first.body.id);
    const third = await api("POST", `/publication-builds/${ids[0]}/commit`, { token: t.editor.token });
    expect(third.status).toBe(200);
    expect(third.body.id).toBe(first.body.id);
    const pubs = await api("GET", `/publications?workspace_id=${t.ws}`, { token: t.viewer.token });
    expect(pubs.body).toHaveLength(1);
  });

  it("commits media every destination chose; media only some chose are named in metadata, not attached", async () => {
    const t = await setup();
    const [image, video] = [newId("med"), newId("med")];
    await withDb((db) =>
      db.insert(media).values([
        {
          id: image,
          workspaceId: t.ws,
          objectKey: `k/${image}`,
          mimeType: "image/png",
          mediaType: "image",
          size: 1000,
          altText: "A chart",
          originalFilename: "chart.png",
        },
        {
          id: video,
          workspaceId: t.ws,
          objectKey: `k/${video}`,
          mimeType: "video/mp4",
          mediaType: "video",
          size: 1000,
          altText: "A clip",
          originalFilename: "clip.mp4",
        },
      ]),
    );
    const res = await api("POST", "/publication-builds", {
      token: t.editor.token,
      json: {
        workspace_id: t.ws,
        idea: "Look at this chart.",
        sources: [
          { kind: "media", media_id: image },
          { kind: "media", media_id: video },
        ],
        destination_account_ids: [t.bluesky, t.hook],
      },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body.assets).toEqual([
      { media_id: image, role: "source", may_publish: true },
      { media_id: video, role: "source", may_publish: true },
    ]);
    expect(await runBuildJob(res.body.id)).toBe("completed");
    const committed = await api("POST", `/publication-builds/${res.body.id}/commit`, { token: t.editor.token });
    expect(committed.status, committed.text).toBe(201);
    expect(committed.body.media.map((m: { id: string }) => m.id)).toEqual([image]);
    expect(committed.body.metadata).toEqual({ build_id: res.body.id, build_media_not_attached: [video] });
  });

  it("skips an account made inactive before the build ran, with a reason", async () => {
    const t = await setup();
    const res = await api("POST", "/publication-builds", {
      token: t.editor.token,
      json: { workspace_id: t.ws, idea: "Hello there.", destination_account_ids: [t.bluesky, t.hook] },
    });
    await withDb((db) =>
      db
        .update(socialAccounts)
        .set({ isActive: false })
        .where(and(eq(socialAccounts.id, t.bluesky), eq(socialAccounts.workspaceId, t.ws))),
    );
    expect(await runBuildJob(res.body.id)).toBe("completed");
    const b = (await api("GET", `/publication-builds/${res.body.id}`, { token: t.editor.token })).body;
    expect(b.result.skipped).toEqual([{ account_id: t.bluesky, platform: "bluesky", reason: expect.stringContaining("inactive") }]);
    expect(b.result.destinations.map((d: { account_id: string }) => d.account_id)).toEqual([t.hook]);
  });
});

describe("with a language model (a stand-in for an OpenAI-compatible API; no model runs here)", () => {
  it("drafts through the model, holds the draft to the limits and source checks, and records the call in the ledger", async () => {
    const chat = await startChatPeer();
    try {
      const t = await setup();
      const res = await api("POST", "/publication-builds", {
        token: t.editor.token,
        json: { workspace_id: t.ws, sources: [{ kind: "text", text: NOTES }], destination_account_ids: [t.bluesky, t.hook] },
      });
      const long = "In our trial, 42 teams cut their drafting time by half. ".repeat(80);
      chat.answer = {
        content: JSON.stringify({
          canonical_text: "Herald plans every destination at once. It also bakes bread.",
          thesis: "Plan once.",
          destinations: [{ account_id: t.bluesky, text: long }],
        }),
      };
      const modelEnv = { ...env, AI_API_KEY: chat.key, AI_BASE_URL: chat.url, AI_MODEL: "stand-in-model" } as typeof env;
      await withDb(async (db) => runBuild(db, modelEnv, res.body.id, { model: await modelFromSettings(modelEnv, db) }));
      const b = (await api("GET", `/publication-builds/${res.body.id}`, { token: t.editor.token })).body;
      expect(b.state).toBe("completed");
      expect(b.result.direction.route).toBe("model:stand-in-model");
      expect(b.result.direction.claims.find((c: { text: string }) => c.text === "It also bakes bread.")).toMatchObject({
        status: "unsupported",
        source_refs: [],
      });
      const bluesky = b.result.destinations.find((d: { account_id: string }) => d.account_id === t.bluesky);
      expect(bluesky.segments.length).toBeLessThanOrEqual(10);
      for (const s of bluesky.segments) expect(graphemeLength(s.body)).toBeLessThanOrEqual(300);
      expect(b.result.review_flags.some((f: { message: string }) => f.message.includes("Text shortened to fit"))).toBe(true);
      expect(chat.requests[0].messages[1].content).toContain("42 teams");
      const ledger = await withDb((db) => db.select().from(providerCostEvents).where(eq(providerCostEvents.buildId, res.body.id)));
      expect(ledger).toEqual([expect.objectContaining({ workspaceId: t.ws, operation: "build.draft", status: "committed", units: 200 })]);

      // A model answer that is not the JSON asked for: the planner writes the build alone, and says so.
      const second = await api("POST", "/publication-builds", {
        token: t.editor.token,
        json: { workspace_id: t.ws, sources: [{ kind: "text", text: NOTES }], destination_account_ids: [t.bluesky] },
      });
      chat.answer = { content: '{"canonical_text": 42}' };
      await withDb(async (db) => runBuild(db, modelEnv, second.body.id, { model: await modelFromSettings(modelEnv, db) }));
      const plain = (await api("GET", `/publication-builds/${second.body.id}`, { token: t.editor.token })).body;
      expect(plain.result.direction.route).toBe("planner");
      expect(plain.result.review_flags[0]).toMatchObject({ field: "model", message: expect.stringContaining("planner wrote this build alone") });
    } finally {
      await chat.stop();
    }
  });
  it("a build job delivered twice asks the model once: concurrent deliveries, then one after a stop past the answer", async () => {
    const chat = await startChatPeer();
    try {
      const t = await setup();
      const res = await api("POST", "/publication-builds", {
        token: t.editor.token,
        json: { workspace_id: t.ws, sources: [{ kind: "text", text: NOTES }], destination_account_ids: [t.bluesky] },
      });
      expect(res.status, res.text).toBe(202);
      chat.answer = {
        content: JSON.stringify({ canonical_text: "Herald plans a publication for every destination at once.", thesis: "Plan once.", destinations: [] }),
      };
      const modelEnv = { ...env, AI_API_KEY: chat.key, AI_BASE_URL: chat.url, AI_MODEL: "stand-in-model" } as typeof env;
      // The consumer itself (queues/build-generate.ts), handed the same job twice at once as SQS may.
      const deliver = () =>
        withDb((db) =>
          buildGenerate.handle({
            tx: db,
            db,
            env: modelEnv,
            attempt: 1,
            job: { job_id: newId("job"), kind: "build.generate", workspace_id: t.ws, payload: { build_id: res.body.id } },
          }),
        );
      const both = await Promise.allSettled([deliver(), deliver()]);
      expect(chat.requests).toHaveLength(1);
      // A delivery that found the call in flight asks to be retried (an error), and its retry completes the build.
      for (const r of both) if (r.status === "rejected") expect(String(r.reason)).toContain("retrying later");
      await deliver();
      const done = (await api("GET", `/publication-builds/${res.body.id}`, { token: t.editor.token })).body;
      expect(done.state).toBe("completed");
      expect(done.result.direction.route).toBe("model:stand-in-model");

      // A worker stopped after the model answered but before the build was stored: the redelivery reuses the answer.
      await withDb((db) => db.update(publicationBuilds).set({ state: "running", result: null }).where(eq(publicationBuilds.id, res.body.id)));
      await deliver();
      expect(chat.requests).toHaveLength(1);
      const again = (await api("GET", `/publication-builds/${res.body.id}`, { token: t.editor.token })).body;
      expect(again.state).toBe("completed");
      expect(again.result.direction.route).toBe("model:stand-in-model");
      const ledger = await withDb((db) => db.select().from(providerCostEvents).where(eq(providerCostEvents.buildId, res.body.id)));
      expect(ledger).toEqual([expect.objectContaining({ operation: "build.draft", status: "committed", units: 200 })]);
    } finally {
      await chat.stop();
    }
  });
});

import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { media, mediaUsages } from "../db/schema";
import { sampleVideoDocument } from "../lib/video/sample";
import { api, expectProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { insertMediaRows } from "./helpers/media";
import { sampleDocument } from "./image-editor-fixtures";

/**
 * Every media id inside a document must be an item of the document's own workspace. The caller here is
 * an owner of both workspaces, so only the workspace check (not membership) stands in the way.
 */
async function twoWorkspaces() {
  const user = await newUser();
  const home = await newWorkspace(user);
  const other = await newWorkspace(user);
  const [theirs] = await insertMediaRows(other, [{}]);
  const [ours] = await insertMediaRows(home, [{}]);
  return { user, home, other, theirs, ours };
}

const usageCount = async (id: string) => (await withDb((db) => db.select({ n: media.usageCount }).from(media).where(eq(media.id, id))))[0].n;
const usesOf = (id: string) => withDb((db) => db.select().from(mediaUsages).where(eq(mediaUsages.mediaId, id)));

describe("media ids inside documents belong to the document's workspace", () => {
  it("designs: an image layer, a background or a preview from another workspace → 422, nothing recorded", async () => {
    const { user, home, theirs, ours } = await twoWorkspaces();
    const layer = await api("POST", "/image-editor/designs", { token: user.token, json: { workspace_id: home, document: sampleDocument(theirs) } });
    expectProblem(layer, 422, "validation-error");
    expect(layer.body.errors).toEqual([expect.objectContaining({ location: "body.document", value: theirs })]);

    const withBackground = sampleDocument(ours);
    withBackground.pages[0].background = { type: "image", image: { media_id: theirs, fit: "cover" } };
    expectProblem(
      await api("POST", "/image-editor/designs", { token: user.token, json: { workspace_id: home, document: withBackground } }),
      422,
      "validation-error",
    );

    const created = await api("POST", "/image-editor/designs", { token: user.token, json: { workspace_id: home, document: sampleDocument(ours) } });
    expect(created.status, created.text).toBe(201);
    const withPreview = sampleDocument(ours);
    withPreview.pages[0].preview_media_id = theirs;
    expectProblem(
      await api("PUT", `/image-editor/designs/${created.body.id}`, { token: user.token, json: { expected_revision: 1, document: withPreview } }),
      422,
      "validation-error",
    );
    // An id that exists nowhere gets the very same answer (nothing is revealed).
    const unknown = await api("PUT", `/image-editor/designs/${created.body.id}`, {
      token: user.token,
      json: { expected_revision: 1, document: sampleDocument("med_nowhere") },
    });
    expectProblem(unknown, 422, "validation-error");
    expect(unknown.body.errors[0].message).toBe(layer.body.errors[0].message);

    expect(await usesOf(theirs)).toEqual([]);
    expect(await usageCount(theirs)).toBe(0);
    expect(await usageCount(ours)).toBe(1);
  });

  it("templates and video projects: the same rule", async () => {
    const { user, home, theirs } = await twoWorkspaces();
    const template = await api("POST", "/image-editor/templates", {
      token: user.token,
      json: { workspace_id: home, name: "T", category: "social", document: sampleDocument(theirs) },
    });
    expectProblem(template, 422, "validation-error");

    const document = sampleVideoDocument();
    document.clips["clip-intro"].media_id = theirs;
    const project = await api("POST", "/video-projects", { token: user.token, json: { workspace_id: home, name: "V", document } });
    expectProblem(project, 422, "validation-error");

    const plain = await api("POST", "/video-projects", { token: user.token, json: { workspace_id: home, name: "V", document: sampleVideoDocument() } });
    expect(plain.status, plain.text).toBe(201);
    const mutation = await api("POST", `/video-projects/${plain.body.id}/mutations`, {
      token: user.token,
      json: {
        workspace_id: home,
        base_revision: 1,
        mutation_id: "m-foreign",
        operations: [{ kind: "set", target: "clip-intro", path: "/media_id", value: theirs }],
      },
    });
    expectProblem(mutation, 422, "validation-error");
    expect(mutation.body.errors[0]).toMatchObject({ location: "body.operations", value: theirs });
    expect(await usesOf(theirs)).toEqual([]);
  });

  it("a use recorded from another workspace (before this rule) does not count, so the item stays deletable", async () => {
    const { user, home, theirs, other } = await twoWorkspaces();
    const [mine] = await insertMediaRows(other, [{}]);
    // A legacy row as the old code wrote it: another workspace's design "using" this item.
    await withDb((db) => db.insert(mediaUsages).values({ mediaId: theirs, workspaceId: home, ownerType: "design", ownerId: "dsn_legacy" }));
    // Any recount of the item (here: a design of its own workspace starts and stops using it) ignores that row.
    const created = await api("POST", "/image-editor/designs", { token: user.token, json: { workspace_id: other, document: sampleDocument(theirs) } });
    expect(created.status, created.text).toBe(201);
    expect(await usageCount(theirs)).toBe(1);
    expect(
      (await api("PUT", `/image-editor/designs/${created.body.id}`, { token: user.token, json: { expected_revision: 1, document: sampleDocument(mine) } }))
        .status,
    ).toBe(200);
    expect(await usageCount(theirs)).toBe(0);
    const item = await api("GET", `/media/${theirs}`, { token: user.token });
    expect(item.body).toMatchObject({ usage_count: 0, can_delete: true });
  });
});

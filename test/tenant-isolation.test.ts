import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { media, mediaUsages } from "../db/schema";
import { sampleVideoDocument } from "../lib/video/sample";
import { newUser, newWorkspace, withDb } from "./helpers/harness";
import { client } from "./helpers/client";
import { insertMediaRows } from "./helpers/media";
import { sampleDocument } from "./image-editor-fixtures";
import { expectData, expectProblem } from "./helpers/typed";

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
    const c = client(user.token);
    const layer = expectProblem(
      await c.POST("/image-editor/designs", { body: { workspace_id: home, document: sampleDocument(theirs) } }),
      422,
      "validation-error",
    );
    expect(layer.errors).toEqual([expect.objectContaining({ location: "body.document", value: theirs })]);

    const withBackground = sampleDocument(ours);
    withBackground.pages[0].background = { type: "image", image: { media_id: theirs, fit: "cover" } };
    expectProblem(await c.POST("/image-editor/designs", { body: { workspace_id: home, document: withBackground } }), 422, "validation-error");

    const created = expectData(await c.POST("/image-editor/designs", { body: { workspace_id: home, document: sampleDocument(ours) } }), 201);
    const withPreview = sampleDocument(ours);
    withPreview.pages[0].preview_media_id = theirs;
    const replace = (document: ReturnType<typeof sampleDocument>) =>
      c.PUT("/image-editor/designs/{id}", { params: { path: { id: created.id } }, body: { expected_revision: 1, document } });
    expectProblem(await replace(withPreview), 422, "validation-error");
    // An id that exists nowhere gets the very same answer (nothing is revealed).
    const unknown = expectProblem(await replace(sampleDocument("med_nowhere")), 422, "validation-error");
    expect(unknown.errors?.[0].message).toBe(layer.errors?.[0].message);

    expect(await usesOf(theirs)).toEqual([]);
    expect(await usageCount(theirs)).toBe(0);
    expect(await usageCount(ours)).toBe(1);
  });

  it("templates and video projects: the same rule", async () => {
    const { user, home, theirs } = await twoWorkspaces();
    const c = client(user.token);
    const template = await c.POST("/image-editor/templates", { body: { workspace_id: home, name: "T", category: "social", document: sampleDocument(theirs) } });
    expectProblem(template, 422, "validation-error");

    const document = sampleVideoDocument();
    document.clips["clip-intro"].media_id = theirs;
    const project = await c.POST("/video-projects", { body: { workspace_id: home, name: "V", document } });
    expectProblem(project, 422, "validation-error");

    const plain = expectData(await c.POST("/video-projects", { body: { workspace_id: home, name: "V", document: sampleVideoDocument() } }), 201);
    const mutation = await c.POST("/video-projects/{id}/mutations", {
      params: { path: { id: plain.id } },
      body: {
        workspace_id: home,
        base_revision: 1,
        mutation_id: "m-foreign",
        operations: [{ kind: "set", target: "clip-intro", path: "/media_id", value: theirs }],
      },
    });
    expect(expectProblem(mutation, 422, "validation-error").errors?.[0]).toMatchObject({ location: "body.operations", value: theirs });
    expect(await usesOf(theirs)).toEqual([]);
  });

  it("a use recorded from another workspace (before this rule) does not count, so the item stays deletable", async () => {
    const { user, home, theirs, other } = await twoWorkspaces();
    const [mine] = await insertMediaRows(other, [{}]);
    // A legacy row as the old code wrote it: another workspace's design "using" this item.
    await withDb((db) => db.insert(mediaUsages).values({ mediaId: theirs, workspaceId: home, ownerType: "design", ownerId: "dsn_legacy" }));
    // Any recount of the item (here: a design of its own workspace starts and stops using it) ignores that row.
    const c = client(user.token);
    const created = expectData(await c.POST("/image-editor/designs", { body: { workspace_id: other, document: sampleDocument(theirs) } }), 201);
    expect(await usageCount(theirs)).toBe(1);
    const replaced = await c.PUT("/image-editor/designs/{id}", {
      params: { path: { id: created.id } },
      body: { expected_revision: 1, document: sampleDocument(mine) },
    });
    expect(replaced.response.status).toBe(200);
    expect(await usageCount(theirs)).toBe(0);
    const item = await c.GET("/media/{id}", { params: { path: { id: theirs } } });
    expect(item.data).toMatchObject({ usage_count: 0, can_delete: true });
  });
});

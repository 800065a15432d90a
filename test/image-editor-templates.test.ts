import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, mediaUsages } from "../db/schema";
import { BUILT_IN_TEMPLATES } from "../lib/image-editor/built-in-templates";
import { client } from "./helpers/client";
import { newWorkspace, withDb } from "./helpers/harness";
import { insertMediaRows } from "./helpers/media";
import { newTeam, type User } from "./helpers/team";
import { expectData, expectProblem, locationsOf, type Schemas } from "./helpers/typed";
import { sampleDocument } from "./image-editor-fixtures";

const team = newTeam;

const createTemplate = (user: User, ws: string, extra: Partial<Schemas["CreateTemplateRequest"]> = {}) =>
  client(user.token).POST("/image-editor/templates", {
    body: { workspace_id: ws, name: "Event promo", category: "social_post", document: sampleDocument(), ...extra },
  });
const list = (user: User, ws: string) => client(user.token).GET("/image-editor/templates", { params: { query: { workspace_id: ws } } });
const patch = (user: User | undefined, id: string, body: Schemas["UpdateTemplateRequest"]) =>
  client(user?.token).PATCH("/image-editor/templates/{id}", { params: { path: { id } }, body });

describe("templates", () => {
  it("lists the built-ins to every member, with can_edit from the role", async () => {
    const { editor, viewer, ws } = await team();
    const res = expectData(await list(viewer, ws));
    expect(res.$schema).toMatch(/ListTemplatesOutputBody\.json$/);
    expect(res.can_edit).toBe(false);
    expect((await list(editor, ws)).data?.can_edit).toBe(true);
    const builtIns = res.templates.filter((t) => t.built_in);
    expect(builtIns.map((t) => t.id)).toEqual(BUILT_IN_TEMPLATES.map((t) => t.id));
    expect(builtIns.length).toBeGreaterThanOrEqual(3);
    for (const t of builtIns) {
      expect(t).toMatchObject({
        $schema: expect.stringMatching(/TemplateResponse\.json$/),
        workspace_id: null,
        built_in: true,
        preview_media_id: null,
        preset_key: expect.any(String),
      });
      expect(t.document.pages[0].layers.length).toBeGreaterThan(0);
    }
    const sizes = builtIns.map((t) => `${t.document.width_px}x${t.document.height_px}`);
    expect(sizes).toEqual(expect.arrayContaining(["1080x1080", "1080x1920", "1200x630"]));
  });

  it("creates workspace templates (editor+), lists them after the built-ins, and keeps them to their workspace", async () => {
    const { owner, editor, viewer, outsider, ws } = await team();
    const created = expectData(await createTemplate(editor, ws), 201);
    expect(created).toMatchObject({
      $schema: expect.stringMatching(/TemplateResponse\.json$/),
      id: expect.stringMatching(/^tpl_/),
      workspace_id: ws,
      built_in: false,
      name: "Event promo",
      category: "social_post",
      preset_key: "square_post",
      preview_media_id: null,
      document: sampleDocument(),
    });
    const templates = expectData(await list(viewer, ws)).templates;
    expect(templates.at(-1)?.id).toBe(created.id);
    expect(templates.slice(0, BUILT_IN_TEMPLATES.length).every((t) => t.built_in)).toBe(true);

    // Another workspace sees only the built-ins.
    const other = await newWorkspace(owner);
    expect(expectData(await list(owner, other)).templates.some((t) => t.id === created.id)).toBe(false);

    expectProblem(await createTemplate(viewer, ws), 403, "forbidden");
    expectProblem(await createTemplate(outsider, ws), 404, "not-found");
    expectProblem(await list(outsider, ws), 404, "not-found");
    const bad = await createTemplate(editor, ws, { category: "" });
    expect(expectProblem(bad, 422, "validation-error").errors?.[0].location).toBe("body.category");
  });

  it("PATCH replaces the given members of a workspace template and keeps the rest", async () => {
    const { editor, viewer, ws } = await team();
    const id = expectData(await createTemplate(editor, ws), 201).id;
    const renamed = expectData(await patch(editor, id, { name: "Webinar promo" }));
    expect(renamed).toMatchObject({ id, name: "Webinar promo", category: "social_post", document: sampleDocument() });

    const [logo] = await insertMediaRows(ws, [{}]);
    const doc = sampleDocument(logo);
    doc.preset_key = "story";
    doc.height_px = 1920;
    const replaced = expectData(await patch(editor, id, { category: "story", document: doc }));
    expect(replaced).toMatchObject({ name: "Webinar promo", category: "story", preset_key: "story", document: doc });
    expect(Date.parse(replaced.updated_at)).toBeGreaterThanOrEqual(Date.parse(replaced.created_at));
    const listed = expectData(await list(viewer, ws)).templates.find((t) => t.id === id);
    expect(listed).toMatchObject({ name: "Webinar promo", category: "story", document: doc });

    const usages = await withDb((db) =>
      db
        .select({ mediaId: mediaUsages.mediaId })
        .from(mediaUsages)
        .where(and(eq(mediaUsages.ownerType, "template"), eq(mediaUsages.ownerId, id))),
    );
    expect(usages).toEqual([{ mediaId: logo }]);
    const trail = await withDb((db) => db.select({ action: auditEvents.action }).from(auditEvents).where(eq(auditEvents.targetId, id)));
    expect(trail.map((t) => t.action)).toEqual(["template.create", "template.update", "template.update"]);
  });

  it("PATCH: built-ins are 403, viewers 403, other workspaces' templates 404, bad documents 422", async () => {
    const { owner, editor, viewer, outsider, ws } = await team();
    const id = expectData(await createTemplate(editor, ws), 201).id;
    for (const t of BUILT_IN_TEMPLATES) expectProblem(await patch(owner, t.id, { name: "Mine now" }), 403, "forbidden");
    expectProblem(await patch(viewer, id, { name: "Nope" }), 403, "forbidden");
    expectProblem(await patch(outsider, id, { name: "Nope" }), 404, "not-found");
    expectProblem(await patch(editor, "tpl_missing", { name: "Nope" }), 404, "not-found");
    expectProblem(await patch(undefined, id, { name: "x" }), 401, "unauthorized");

    const opacity = sampleDocument();
    opacity.pages[0].layers[3].opacity = 2;
    const cases: [Schemas["UpdateTemplateRequest"], string][] = [
      [{ document: opacity }, "body.document.pages[0].layers[3].opacity"],
      [{ document: { ...sampleDocument(), width_px: 0 } }, "body.document.width_px"],
      [{ document: { ...sampleDocument(), title: "t".repeat(100_000) } }, "body.document.title"],
      [{}, "body"],
      [{ name: "n".repeat(100_000) }, "body.name"],
    ];
    for (const [body, location] of cases) {
      const res = await patch(editor, id, body);
      expect(locationsOf(expectProblem(res, 422, "validation-error"))).toContain(location);
    }
    // Nothing changed.
    expect(expectData(await list(viewer, ws)).templates.find((t) => t.id === id)).toMatchObject({ name: "Event promo", document: sampleDocument() });
  });
});

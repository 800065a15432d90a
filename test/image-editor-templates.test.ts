import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, mediaUsages } from "../db/schema";
import { BUILT_IN_TEMPLATES } from "../lib/image-editor/built-in-templates";
import { api, newWorkspace, withDb } from "./helpers/harness";
import { insertMediaRows } from "./helpers/media";
import { sampleDocument } from "./image-editor-fixtures";
import { expectProblem, newTeam, type User } from "./helpers/team";

const team = newTeam;

const createTemplate = (user: User, ws: string, extra: Record<string, unknown> = {}) =>
  api("POST", "/image-editor/templates", {
    token: user.token,
    json: { workspace_id: ws, name: "Event promo", category: "social_post", document: sampleDocument(), ...extra },
  });
const list = (user: User, ws: string) => api("GET", `/image-editor/templates?workspace_id=${ws}`, { token: user.token });
const patch = (user: User, id: string, json: unknown) => api("PATCH", `/image-editor/templates/${id}`, { token: user.token, json });

describe("templates", () => {
  it("lists the built-ins to every member, with can_edit from the role", async () => {
    const { editor, viewer, ws } = await team();
    const res = await list(viewer, ws);
    expect(res.status, res.text).toBe(200);
    expect(res.body.$schema).toMatch(/ListTemplatesOutputBody\.json$/);
    expect(res.body.can_edit).toBe(false);
    expect((await list(editor, ws)).body.can_edit).toBe(true);
    const builtIns = res.body.templates.filter((t: { built_in: boolean }) => t.built_in);
    expect(builtIns.map((t: { id: string }) => t.id)).toEqual(BUILT_IN_TEMPLATES.map((t) => t.id));
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
    const sizes = builtIns.map((t: { document: { width_px: number; height_px: number } }) => `${t.document.width_px}x${t.document.height_px}`);
    expect(sizes).toEqual(expect.arrayContaining(["1080x1080", "1080x1920", "1200x630"]));
  });

  it("creates workspace templates (editor+), lists them after the built-ins, and keeps them to their workspace", async () => {
    const { owner, editor, viewer, outsider, ws } = await team();
    const created = await createTemplate(editor, ws);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
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
    const templates = (await list(viewer, ws)).body.templates;
    expect(templates.at(-1).id).toBe(created.body.id);
    expect(templates.slice(0, BUILT_IN_TEMPLATES.length).every((t: { built_in: boolean }) => t.built_in)).toBe(true);

    // Another workspace sees only the built-ins.
    const other = await newWorkspace(owner);
    expect((await list(owner, other)).body.templates.some((t: { id: string }) => t.id === created.body.id)).toBe(false);

    expectProblem(await createTemplate(viewer, ws), 403, "forbidden");
    expectProblem(await createTemplate(outsider, ws), 404, "not-found");
    expectProblem(await list(outsider, ws), 404, "not-found");
    const bad = await createTemplate(editor, ws, { category: "" });
    expectProblem(bad, 422, "validation-error");
    expect(bad.body.errors[0].location).toBe("body.category");
  });

  it("PATCH replaces the given members of a workspace template and keeps the rest", async () => {
    const { editor, viewer, ws } = await team();
    const id = (await createTemplate(editor, ws)).body.id;
    const renamed = await patch(editor, id, { name: "Webinar promo" });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ id, name: "Webinar promo", category: "social_post", document: sampleDocument() });

    const [logo] = await insertMediaRows(ws, [{}]);
    const doc = sampleDocument(logo);
    doc.preset_key = "story";
    doc.height_px = 1920;
    const replaced = await patch(editor, id, { category: "story", document: doc });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toMatchObject({ name: "Webinar promo", category: "story", preset_key: "story", document: doc });
    expect(Date.parse(replaced.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(replaced.body.created_at));
    const listed = (await list(viewer, ws)).body.templates.find((t: { id: string }) => t.id === id);
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
    const id = (await createTemplate(editor, ws)).body.id;
    for (const t of BUILT_IN_TEMPLATES) expectProblem(await patch(owner, t.id, { name: "Mine now" }), 403, "forbidden");
    expectProblem(await patch(viewer, id, { name: "Nope" }), 403, "forbidden");
    expectProblem(await patch(outsider, id, { name: "Nope" }), 404, "not-found");
    expectProblem(await patch(editor, "tpl_missing", { name: "Nope" }), 404, "not-found");
    expectProblem(await api("PATCH", `/image-editor/templates/${id}`, { json: { name: "x" } }), 401, "unauthorized");

    const opacity = sampleDocument();
    opacity.pages[0].layers[3].opacity = 2;
    for (const [json, location] of [
      [{ document: opacity }, "body.document.pages[0].layers[3].opacity"],
      [{ document: { ...sampleDocument(), width_px: 0 } }, "body.document.width_px"],
      [{ document: { ...sampleDocument(), title: "t".repeat(100_000) } }, "body.document.title"],
      [{}, "body"],
      [{ name: "n".repeat(100_000) }, "body.name"],
    ] as const) {
      const res = await patch(editor, id, json);
      expectProblem(res, 422, "validation-error");
      expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(location);
    }
    // Nothing changed.
    expect((await list(viewer, ws)).body.templates.find((t: { id: string }) => t.id === id)).toMatchObject({ name: "Event promo", document: sampleDocument() });
  });
});

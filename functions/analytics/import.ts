import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { audit } from "../../lib/audit";
import { workspaceAccounts } from "../../lib/analytics/accounts";
import { CONTENT_METRICS } from "../../lib/analytics/metrics";
import type { MetricReading } from "../../lib/providers/analytics/collect";
import { insertMeasurements, refreshRollups, upsertContentItems, type MeasurementInput } from "../../lib/analytics/store";
import { ApiError, type FieldError } from "../../lib/http/errors";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { responseObject, withSchema } from "../../lib/http/schema-ref";
import { DateTimeParam, IdParam, WorkspaceIdField } from "../../lib/schemas/common";
import { inBody, workspaceRole } from "../../lib/http/access";

export const MAX_IMPORT_ITEMS = 1000;

/** Counts are non-negative integers JavaScript and Postgres bigint both hold exactly. */
const Count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const ImportItem = z
  .object({
    account_id: IdParam,
    external_id: z.string().min(1).max(300).openapi({ description: "The post's id on the platform; importing it again updates it" }),
    published_at: DateTimeParam,
    title: z.string().max(300).optional(),
    excerpt: z.string().max(500).optional(),
    external_url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    metrics: z
      .object(Object.fromEntries(CONTENT_METRICS.map((m) => [m, Count.optional()])) as Record<(typeof CONTENT_METRICS)[number], z.ZodOptional<typeof Count>>)
      .strict(),
  })
  .openapi("ImportMeasurementItem");

export const ImportMeasurementsRequest = z
  .object({ workspace_id: WorkspaceIdField, items: z.array(ImportItem).min(1).max(MAX_IMPORT_ITEMS) })
  .openapi("ImportMeasurementsRequest");

export const ImportMeasurementsResponse = responseObject("ImportMeasurementsResponse", {
  imported: z.number().int(),
  created: z.number().int().openapi({ description: "Items not seen before" }),
  updated: z.number().int().openapi({ description: "Items that existed (same account and external id) and were updated" }),
  items: z.array(z.object({ id: z.string(), account_id: z.string(), external_id: z.string(), created: z.boolean() }).openapi("ImportedContentItem")),
});

export const route = createRoute({
  method: "post",
  path: "/analytics/measurements",
  operationId: "importMeasurements",
  tags: ["analytics"],
  summary: "Import external content measurements",
  description: `Up to ${MAX_IMPORT_ITEMS} items, all or nothing: one invalid item → 422 naming \`body.items[i]…\`, nothing saved. Items are keyed by account and external id, so importing one again updates it. Needs the editor role.`,
  request: { body: jsonBody(ImportMeasurementsRequest) },
  responses: { 200: jsonResponse(ImportMeasurementsResponse, "What was imported"), ...problems(400, 401, 403, 404, 413, 422) },
});

export const access = workspaceRole("editor", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const result = await db(c).transaction(async (tx) => {
    const owned = new Set((await workspaceAccounts(tx, body.workspace_id, [...new Set(body.items.map((i) => i.account_id))])).map((a) => a.id));
    const errors: FieldError[] = [];
    const seen = new Map<string, number>();
    body.items.forEach((item, i) => {
      if (!owned.has(item.account_id)) errors.push({ location: `body.items[${i}].account_id`, message: "No such account in this workspace" });
      const key = JSON.stringify([item.account_id, item.external_id]);
      const first = seen.get(key);
      if (first !== undefined) errors.push({ location: `body.items[${i}].external_id`, message: `Same account and external id as body.items[${first}]` });
      else seen.set(key, i);
    });
    if (errors.length) {
      throw new ApiError("validation-error", {
        detail: errors
          .slice(0, 5)
          .map((e) => `${e.location}: ${e.message}`)
          .join("; "),
        errors: errors.slice(0, 50),
      });
    }
    const now = new Date();
    const saved = await upsertContentItems(
      tx,
      body.items.map((it) => ({
        workspaceId: body.workspace_id,
        accountId: it.account_id,
        source: "external" as const,
        externalId: it.external_id,
        publishedAt: new Date(it.published_at),
        title: it.title,
        excerpt: it.excerpt,
        externalUrl: it.external_url,
      })),
      now,
    );
    const measurements: MeasurementInput[] = body.items.flatMap((it, i) =>
      Object.entries(it.metrics)
        .filter(([, v]) => v !== undefined)
        .map(([metric, value]) => ({
          workspaceId: body.workspace_id,
          accountId: it.account_id,
          contentItemId: saved[i].id,
          reading: { metric, value } as MetricReading,
          collectedAt: now,
          source: "import" as const,
        })),
    );
    await insertMeasurements(tx, measurements);
    await refreshRollups(
      tx,
      saved.map((s) => s.id),
    );
    await audit(tx, { ...auditActor(c), workspaceId: body.workspace_id, action: "analytics.import", targetType: "workspace", targetId: body.workspace_id });
    return saved;
  });
  const created = result.filter((r) => r.created).length;
  return c.json(
    withSchema(c, ImportMeasurementsResponse, {
      imported: result.length,
      created,
      updated: result.length - created,
      items: result.map((r, i) => ({ id: r.id, account_id: body.items[i].account_id, external_id: body.items[i].external_id, created: r.created })),
    }),
    200,
  );
};

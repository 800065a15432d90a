import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, isNull } from "drizzle-orm";
import { PLATFORMS } from "../../db/schema/accounts";
import { socialAccounts } from "../../db/schema";
import { requireAiBudget } from "../../lib/billing/ai-budget";
import { modelFromSettings } from "../../lib/builds/model";
import { discoverWithModel } from "../../lib/discovery/model";
import { rankOpportunities } from "../../lib/discovery/rank";
import { loadSignals } from "../../lib/discovery/signals";
import { db, type AppEnv } from "../../lib/http/context";
import { logEvent } from "../../lib/log";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { DiscoveryResult } from "./schemas";
import { inBody, workspaceRole } from "../../lib/http/access";

export const DiscoverOpportunitiesRequest = z
  .object({
    workspace_id: WorkspaceIdField,
    platforms: z
      .array(z.string().min(1).max(50))
      .max(20)
      .optional()
      .openapi({ description: "Platforms to suggest treatments for; all connected ones when left out" }),
  })
  .openapi("DiscoverOpportunitiesRequest");

/** What `model` says when no language model is configured: the workspace's signals ranked by Herald itself. */
export const RANKER = "herald-signal-ranker";

export const route = createRoute({
  method: "post",
  path: "/publication-opportunities/discover",
  operationId: "discoverOpportunities",
  tags: ["publication-builds"],
  summary: "Discover current content opportunities",
  description:
    "Idea cards from the workspace's own signals (recent publications and how they did, imported content, media, build sources, the default voice's expertise and opinions), " +
    "each with angles and one treatment per platform. Never drafts, schedules or publishes anything. " +
    "422: a platform Herald does not know or with no connected account; 409: nothing to learn from yet; 403 `plan-limit-reached` (billing on): the plan's AI budget (`ai_budget_microusd`) is used up for this period, checked as builds check it. " +
    "When the configured language model fails, refuses or breaks the answer's shape, Herald's own ranker answers instead (`model` says which). Needs the editor role.",
  request: { body: jsonBody(DiscoverOpportunitiesRequest) },
  responses: {
    200: jsonResponse(DiscoveryResult, "Idea cards"),
    ...problems(400, 401, 403, 404, 409, 413, 422),
  },
});

// Discovery spends AI budget on content planning: the editor role, like composing.
export const access = workspaceRole("editor", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const database = db(c);
  const accounts = await database
    .select({ platform: socialAccounts.platform })
    .from(socialAccounts)
    .where(and(eq(socialAccounts.workspaceId, body.workspace_id), eq(socialAccounts.isActive, true), isNull(socialAccounts.disconnectedAt)));
  const connected = new Set<string>(accounts.map((a) => a.platform));
  if (body.platforms === undefined && connected.size === 0) {
    throw new ApiError("validation-error", {
      detail: "The workspace has no connected accounts, so there is no platform to suggest for; connect an account or name the platforms.",
      errors: [{ location: "body.platforms", message: "No connected account in this workspace" }],
    });
  }
  const errors = (body.platforms ?? []).flatMap((p, i) =>
    !(PLATFORMS as readonly string[]).includes(p)
      ? [{ location: `body.platforms[${i}]`, message: `Unknown platform; one of ${PLATFORMS.join(", ")}`, value: p }]
      : !connected.has(p)
        ? [{ location: `body.platforms[${i}]`, message: "No connected account on this platform in the workspace; connect one first", value: p }]
        : [],
  );
  if (errors.length) throw new ApiError("validation-error", { detail: errors.map((e) => `${e.location}: ${e.message}`).join("; "), errors });
  const platforms = body.platforms ? [...new Set(body.platforms)] : PLATFORMS.filter((p) => connected.has(p));

  const signals = await loadSignals(database, body.workspace_id);
  if (signals.length === 0) {
    throw new ApiError("conflict", {
      detail:
        "Nothing to learn from yet: publish something, import analytics, upload media or give the default voice its expertise and opinions, then ask again.",
    });
  }
  // The same budget and plan check as builds, whether or not a model is configured (lib/billing/ai-budget.ts).
  await requireAiBudget(c.env, database, body.workspace_id);
  const model = await modelFromSettings(c.env, database);
  let opportunities = rankOpportunities(signals, platforms);
  let answeredBy = RANKER;
  if (model) {
    const answer = await discoverWithModel(database, model, body.workspace_id, signals, platforms);
    if (answer.ok) {
      opportunities = answer.value;
      answeredBy = model.model;
    } else {
      // The ranker's cards are still good ones: a failing model costs the caller nothing but the model's ideas.
      logEvent("warn", "discovery fell back to the ranker", { request_id: c.get("requestId"), status: answer.status ?? null });
    }
  }
  return c.json(withSchema(c, DiscoveryResult, { generated_at: new Date().toISOString(), model: answeredBy, opportunities }), 200);
};

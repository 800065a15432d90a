import { z } from "@hono/zod-openapi";
import { responseObject } from "./schema-ref";
import type { PROBLEMS } from "./problems";

export const Problem = responseObject("Problem", {
  type: z.string().openapi({ example: "http://localhost:8787/problems/not-found" }),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  errors: z
    .array(z.object({ location: z.string(), message: z.string(), value: z.unknown().optional() }))
    .optional()
    .openapi({ description: "Validation failures, one per offending field" }),
  current_revision: z.number().int().optional().openapi({ description: "On revision-conflict: the current revision" }),
  limit: z.string().optional().openapi({ description: "On plan-limit-reached: the name of the plan limit" }),
  usage: z.number().int().optional().openapi({ description: "On plan-limit-reached: usage of that limit now" }),
  allowed: z.number().int().optional().openapi({ description: "On plan-limit-reached: what the plan allows" }),
  plan_id: z.string().optional().openapi({ description: "On plan-limit-reached: the plan in force" }),
}).openapi({ description: "RFC 9457 problem details" });

type Status = (typeof PROBLEMS)[keyof typeof PROBLEMS]["status"];

const DESCRIPTIONS: Partial<Record<Status, string>> = {
  400: "Body is not JSON or not the declared content type",
  401: "Missing, unknown or revoked bearer token",
  403: "Role too low for this operation, or a plan limit reached",
  404: "No such resource, or not visible to the caller",
  409: "Conflict with the current state",
  405: "The method is not offered on this path",
  406: "The request does not accept a media type the operation answers with",
  413: "Request body too large",
  415: "Unsupported media type",
  422: "Validation failed",
  429: "Rate limited",
  501: "Declared, not built yet",
  502: "The provider answered with an error",
  503: "A dependency is unavailable",
};

/** OpenAPI response entries for the listed problem statuses, to spread into a route's `responses`. */
export function problems(...statuses: Status[]) {
  const out: Record<number, { description: string; content: { "application/problem+json": { schema: typeof Problem } } }> = {};
  for (const status of statuses) {
    out[status] = {
      description: DESCRIPTIONS[status] ?? "Problem",
      content: { "application/problem+json": { schema: Problem } },
    };
  }
  return out;
}

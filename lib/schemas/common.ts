import { z } from "@hono/zod-openapi";

/** Building blocks shared by the operation groups' request and response schemas. */

export const Timestamp = z.string().datetime().openapi({ example: "2026-11-22T09:30:00.000Z" });

/** A timestamp Herald may have no value for. */
export const OptionalTimestamp = Timestamp.nullable();

/**
 * `null` or a named component. `.nullable()` on a schema registered with `.openapi("Name")` makes
 * zod-to-openapi 9 mark the component itself nullable when it is first met through it, so every other
 * use of the component would turn nullable too; an explicit union keeps the component exact.
 */
export const orNull = <S extends z.ZodType>(schema: S) => z.union([schema, z.null()]);

/**
 * An enumerated string of which SPEC.md lists one value and leaves the others "not shown": typed as a
 * string so unlisted values are not rejected, with the known value documented.
 */
export const knownValue = (value: string, description: string) =>
  z
    .string()
    .max(100)
    .openapi({ description: `${description}. Known value: \`${value}\`; other values may appear.`, example: value });

/** `map<string, any>` of SPEC.md. */
export const JsonMap = z.record(z.string(), z.unknown()).openapi({ description: "Free-form JSON object" });

/** `map<string, integer>` of SPEC.md. */
export const IntegerMap = z.record(z.string(), z.number().int());

/** An opaque id in a path, query or body. */
export const IdParam = z.string().min(1).max(100);

export const WorkspaceIdField = IdParam.openapi({ description: "Workspace ID", example: "wsp_0123456789abcdefghijklmn" });

/** `expected_revision` / `base_revision` in a body: revisions start at 1. */
export const RevisionField = z.number().int().min(1).max(2_147_483_647);

/** `expected_revision` in a query string (DELETE has no body): the same range as RevisionField. */
export const ExpectedRevisionQuery = z.coerce.number().int().min(1).max(2_147_483_647).openapi({ type: "integer", minimum: 1, maximum: 2_147_483_647 });

/** RFC 3339 date-time with `Z` or an offset (request side). */
export const DateTimeParam = z.iso.datetime({ offset: true });

/**
 * A boolean query parameter: exactly `true` or `false`. `z.coerce.boolean()` would read "false" as true
 * (any non-empty string is truthy), so it is not used.
 */
export const BooleanQuery = z
  .enum(["true", "false"])
  .transform((v) => v === "true")
  .openapi({ type: "boolean" });

/**
 * A non-negative integer query parameter (coerced from the query string). zod-to-openapi documents a
 * coerced number that accepts 0 as nullable (Number(null) is 0); query values are never null, so the
 * documented schema is given explicitly.
 */
export const NonNegativeIntQuery = (max = 1_000_000) => z.coerce.number().int().min(0).max(max).openapi({ type: "integer", minimum: 0, maximum: max });

/**
 * `offset` query parameter. Capped so that no request makes the database walk past more than 10,000 rows
 * (the same window search engines allow); deeper pages need narrower filters or the cursor where offered.
 */
export const MAX_OFFSET = 10_000;
export const OffsetQuery = NonNegativeIntQuery(MAX_OFFSET)
  .optional()
  .openapi({ description: `Items to skip, at most ${MAX_OFFSET}` });

/** Nesting depth of a JSON value, measured without recursion so a hostile document cannot overflow the stack. */
function depthOf(value: unknown, limit: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    max = Math.max(max, depth);
    if (max > limit) return max;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return max;
}

/** Whether a JSON value stays within a nesting depth and a serialised size. */
export function jsonWithin(value: unknown, maxChars: number, maxDepth: number): boolean {
  if (depthOf(value, maxDepth) > maxDepth) return false;
  return (JSON.stringify(value) ?? "").length <= maxChars;
}

const JSON_DEPTH = 32;

/** Any client-supplied JSON value, bounded in size and depth so it cannot bloat a row or a stack. */
export const BoundedJson = (maxChars: number) =>
  z.unknown().refine((v) => jsonWithin(v, maxChars, JSON_DEPTH), {
    message: `At most ${maxChars} characters of JSON, nested at most ${JSON_DEPTH} deep`,
  });

/** A client-supplied free-form JSON object, bounded like BoundedJson. */
export const BoundedJsonMap = (maxChars: number) =>
  z
    .record(z.string().max(200), z.unknown())
    .refine((v) => jsonWithin(v, maxChars, JSON_DEPTH), { message: `At most ${maxChars} characters of JSON, nested at most ${JSON_DEPTH} deep` })
    .openapi({ description: `Free-form JSON object, at most ${maxChars} characters when serialised and ${JSON_DEPTH} levels deep` });

import { z, type RouteConfig } from "@hono/zod-openapi";
import { IdempotencyKeyHeader } from "../../lib/http/idempotency";
import type { OperationCall } from "./call-operation";

/** The tool argument that becomes the operation's Idempotency-Key header. */
export const IDEMPOTENCY_ARGUMENT = "idempotency_key";

/** How a tool's flat arguments map onto its operation's request: which are path parameters, query members, the body. */
export interface ToolInput {
  schema: z.ZodObject;
  params: readonly string[];
  query: readonly string[];
  /** "fields": the body's members are arguments of their own; "nested": the whole body is the `body` argument. */
  body: "none" | "fields" | "nested";
  idempotent: boolean;
}

const shapeOf = (schema: unknown): z.ZodRawShape => (schema instanceof z.ZodObject ? schema.shape : {});

function bodySchemaOf(route: RouteConfig): z.ZodType | undefined {
  const media = route.request?.body?.content?.["application/json"];
  return media && "schema" in media && media.schema instanceof z.ZodType ? media.schema : undefined;
}

const acceptsIdempotencyKey = (route: RouteConfig) =>
  [route.request?.headers ?? []].flat().some((h) => h === IdempotencyKeyHeader || "idempotency-key" in shapeOf(h));

/**
 * A tool's input schema, made of the operation's own zod schemas (path parameters, query, JSON body, and the
 * Idempotency-Key header where it takes one) rather than restated: the arguments are their members side by side,
 * or the body as `body` when it is not an object or a member's name is taken.
 */
export function toolInput(route: RouteConfig): ToolInput {
  const params = shapeOf(route.request?.params);
  const query = shapeOf(route.request?.query);
  const bodySchema = bodySchemaOf(route);
  const idempotent = acceptsIdempotencyKey(route);
  const taken = new Set([...Object.keys(params), ...Object.keys(query), IDEMPOTENCY_ARGUMENT]);
  const bodyShape = bodySchema instanceof z.ZodObject ? bodySchema.shape : undefined;
  const body = !bodySchema ? "none" : bodyShape && Object.keys(bodyShape).every((k) => !taken.has(k)) ? "fields" : "nested";
  const schema = z.object({
    ...params,
    ...query,
    ...(body === "fields" ? bodyShape : body === "nested" && bodySchema ? { body: bodySchema } : {}),
    ...(idempotent ? { [IDEMPOTENCY_ARGUMENT]: IdempotencyKeyHeader.shape["idempotency-key"] } : {}),
  });
  return { schema, params: Object.keys(params), query: Object.keys(query), body, idempotent };
}

/** The tool's arguments as the operation's request. Members the schema does not name go to the body, for the operation to judge. */
export function operationCall(route: RouteConfig, input: ToolInput, args: Record<string, unknown>): OperationCall {
  const params: Record<string, string> = {};
  const query: Record<string, unknown> = {};
  const fields: Record<string, unknown> = {};
  let idempotencyKey: string | undefined;
  for (const [name, value] of Object.entries(args)) {
    if (input.params.includes(name)) params[name] = String(value);
    else if (input.query.includes(name)) query[name] = value;
    else if (name === IDEMPOTENCY_ARGUMENT && input.idempotent && typeof value === "string") idempotencyKey = value;
    else fields[name] = value;
  }
  const body = input.body === "none" ? undefined : input.body === "nested" ? args.body : fields;
  return { method: route.method, path: route.path, params, query, body, idempotencyKey };
}

/** The JSON Schema an MCP client sees (the request's input side: defaults optional, coercions as sent). */
export function inputJsonSchema(input: ToolInput): { type: "object"; [member: string]: unknown } {
  // Plain JSON (zod's result carries members of its own for other tools): what a client receives anyway.
  const json: Record<string, unknown> = JSON.parse(
    JSON.stringify(z.toJSONSchema(input.schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" })),
  );
  return { ...json, type: "object" };
}

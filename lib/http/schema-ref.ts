import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { publicBaseUrl } from "../env";
import { schemaUrl } from "./schema-url";

const names = new WeakMap<z.ZodType, string>();

const schemaRef = (name: string) =>
  z
    .string()
    .url()
    .openapi({ description: "URL of the JSON Schema describing this object", example: `http://localhost:8787/api/v1/schemas/${name}.json` });

/**
 * A named response object: registered as an OpenAPI component, served at
 * /api/v1/schemas/<name>.json, and carrying `$schema` that points there.
 */
export function responseObject<T extends z.ZodRawShape>(name: string, shape: T) {
  const schema = z.object({ $schema: schemaRef(name), ...shape }).openapi(name);
  names.set(schema, name);
  return schema;
}

export function schemaName(schema: z.ZodType): string {
  const name = names.get(schema);
  if (!name) throw new Error("schema was not declared with responseObject()");
  return name;
}

type Body<S extends z.ZodType> = Omit<z.input<S>, "$schema">;

/** Adds `$schema` to a top-level response object. */
export function withSchema<S extends z.ZodType>(c: Context, schema: S, body: Body<S>): z.infer<S> {
  return { $schema: schemaUrl(publicBaseUrl(c.env, c.req.url), schemaName(schema)), ...body } as z.infer<S>;
}

/** Adds `$schema` to every element of a top-level response array. */
export function withSchemaEach<S extends z.ZodType>(c: Context, schema: S, items: Body<S>[]): z.infer<S>[] {
  const url = schemaUrl(publicBaseUrl(c.env, c.req.url), schemaName(schema));
  return items.map((item) => ({ $schema: url, ...item }) as z.infer<S>);
}

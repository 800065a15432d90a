import { schemaUrl } from "./schema-url";

type Doc = { components?: { schemas?: Record<string, unknown> } };

/** Rewrite component references into sibling schema URLs so each served schema stands alone. */
function rewriteRefs(node: unknown, base: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, base));
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string" && value.startsWith("#/components/schemas/")) {
      out[key] = schemaUrl(base, value.slice("#/components/schemas/".length));
    } else out[key] = rewriteRefs(value, base);
  }
  return out;
}

/** The JSON Schema (2020-12) of a named component of the OpenAPI document, as `$schema` URLs name it. */
export function jsonSchemaFor(doc: Doc, name: string, base: string): Record<string, unknown> | undefined {
  const schemas = doc.components?.schemas ?? {};
  if (!Object.hasOwn(schemas, name)) return undefined;
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: schemaUrl(base, name),
    title: name,
    ...(rewriteRefs(schemas[name], base) as object),
  };
}

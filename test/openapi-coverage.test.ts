import { beforeAll, describe, expect, it } from "vitest";
import { api } from "./helpers/harness";
import { FIELDS } from "./spec/fields";
import { OPERATIONS, TOP_LEVEL } from "./spec/operations";

type Schema = Record<string, any>;
let doc: Schema;

const component = (name: string): Schema => doc.components.schemas[name];
const deref = (s: Schema): Schema => (s?.$ref ? component(s.$ref.split("/").pop()) : s);

/** The JSON types a property may take, `null` aside, following $ref / anyOf / allOf. */
function typesOf(prop: Schema): string[] {
  if (prop.$ref) return typesOf(deref(prop));
  const alternatives = prop.anyOf ?? prop.oneOf;
  if (alternatives) return alternatives.flatMap(typesOf);
  if (prop.allOf) return typesOf(prop.allOf[0]);
  const type = prop.type ?? (prop.properties || prop.additionalProperties ? "object" : undefined);
  return (Array.isArray(type) ? type : [type]).filter((t: string | undefined) => t && t !== "null");
}

beforeAll(async () => {
  const res = await api("GET", "/openapi.json");
  expect(res.status).toBe(200);
  doc = res.body;
});

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 and declares all 21 operations of SPEC.md part 4", () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const missing = OPERATIONS.filter((op) => !doc.paths[op.path]?.[op.method]).map((op) => `${op.method.toUpperCase()} ${op.path}`);
    expect(missing).toEqual([]);
    expect(OPERATIONS).toHaveLength(21);
  });

  it.each(OPERATIONS)("$method $path answers $component with $status and lists its problems", (op) => {
    const responses = doc.paths[op.path][op.method].responses;
    const schema = responses[op.status]?.content?.["application/json"]?.schema;
    expect(schema, `no ${op.status} JSON response`).toBeDefined();
    const target = op.array ? (expect(schema.type).toBe("array"), schema.items) : schema;
    expect(target.$ref).toBe(`#/components/schemas/${op.component}`);
    expect(responses[401]?.content?.["application/problem+json"]).toBeDefined();
    for (const [status, res] of Object.entries<Schema>(responses)) {
      if (Number(status) >= 400) expect(res.content["application/problem+json"].schema.$ref).toBe("#/components/schemas/Problem");
    }
  });

  it.each(Object.keys(FIELDS))("component %s has every field SPEC.md part 2 lists", (name) => {
    const schema = component(name);
    expect(schema, `component ${name} is not declared`).toBeDefined();
    const properties = schema.properties ?? {};
    const missing: string[] = [];
    const mistyped: string[] = [];
    for (const entry of FIELDS[name]) {
      const [field, type] = entry.split(":");
      if (!properties[field]) {
        missing.push(field);
        continue;
      }
      const types = typesOf(properties[field]);
      if (type && !types.includes(type)) mistyped.push(`${field}: ${type} expected, declared ${types.join("|") || "any"}`);
    }
    expect(missing).toEqual([]);
    expect(mistyped).toEqual([]);
  });

  it.each(TOP_LEVEL)("top-level %s carries $schema and is served as its JSON Schema", async (name) => {
    expect(component(name)?.properties?.$schema).toBeDefined();
    expect(component(name).required).toContain("$schema");
    const res = await api("GET", `/api/v1/schemas/${name}.json`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/schema\+json/);
    expect(res.body).toMatchObject({ $id: `http://localhost:8787/api/v1/schemas/${name}.json`, title: name, type: "object" });
    expect(Object.keys(res.body.properties)).toEqual(expect.arrayContaining(FIELDS[name].map((f) => f.split(":")[0])));
  });

  it("documents the request limits of SPEC.md part 8", () => {
    const params = (method: string, path: string) => Object.fromEntries(doc.paths[path][method].parameters.map((p: Schema) => [`${p.in}.${p.name}`, p.schema]));
    expect(params("get", "/publications")["query.limit"]).toMatchObject({ type: "integer", default: 50, maximum: 200 });
    expect(params("get", "/publications")["query.activity_bucket"].enum.sort()).toEqual(["draft", "failed", "published", "scheduled"]);
    expect(params("put", "/publications/{id}")["header.idempotency-key"]).toMatchObject({ maxLength: 200 });
    expect(params("post", "/publications/{id}/publish-now")["header.idempotency-key"]).toMatchObject({ maxLength: 200 });
    expect(params("get", "/analytics")["query.days"]).toMatchObject({ enum: [7, 30, 90], default: 30 });
    expect(params("get", "/analytics")["query.limit"]).toMatchObject({ minimum: 1, maximum: 100, default: 50 });
    expect(params("get", "/analytics")["query.source"]).toMatchObject({ enum: ["all", "native", "external"], default: "all" });
    expect(params("get", "/analytics")["query.sort"]).toMatchObject({ enum: ["engagement", "views", "newest"], default: "engagement" });
    const media = params("get", "/media");
    expect(media["query.limit"]).toMatchObject({ default: 50, maximum: 200 });
    for (const dim of ["min_width", "min_height", "max_width", "max_height"]) expect(media[`query.${dim}`]).toMatchObject({ type: "integer", minimum: 0 });
    expect(media["query.lifecycle"].enum).toEqual(["library", "temporary", "trash", "all"]);
    expect(media["query.untagged"]).toMatchObject({ type: "boolean" }); // SPEC: untagged (boolean)
    const del = params("delete", "/publications/{id}");
    expect(del["query.expected_revision"]).toMatchObject({ type: "integer", minimum: 1 });
    expect(del["query.confirm"]).toMatchObject({ type: "boolean" }); // SPEC: confirm (boolean)
  });
});

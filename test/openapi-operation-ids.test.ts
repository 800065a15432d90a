import { beforeAll, describe, expect, it } from "vitest";
import { api, newUser } from "./helpers/harness";

interface Operation {
  operationId?: string;
  tags?: string[];
}
interface Document {
  info: { license?: { name?: string }; contact?: object };
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
}

let doc: Document;
const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, ...op })));

beforeAll(async () => {
  const res = await api<Document>("GET", "/openapi.json");
  expect(res.status).toBe(200);
  doc = res.body;
});

describe("the OpenAPI document names what a generic tool needs", () => {
  it("gives every operation an operationId, camelCase and unique", () => {
    const all = operations();
    expect(all.length).toBeGreaterThanOrEqual(100);
    expect(all.filter((op) => !op.operationId).map((op) => op.at)).toEqual([]);
    expect(all.filter((op) => !/^[a-z][A-Za-z0-9]*$/.test(op.operationId ?? "")).map((op) => `${op.at}: ${op.operationId}`)).toEqual([]);
    const seen = new Map<string, string>();
    const repeated = all.flatMap((op) => {
      const first = seen.get(op.operationId ?? "");
      seen.set(op.operationId ?? "", op.at);
      return first ? [`${op.operationId}: ${first} and ${op.at}`] : [];
    });
    expect(repeated).toEqual([]);
  });

  it("names each MCP tool by the operationId of the operation it calls", async () => {
    const user = await newUser();
    const res = await api<{ result: { tools: { name: string; description: string }[] } }>("POST", "/mcp", {
      token: user.token,
      headers: { accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    expect(res.status, res.text).toBe(200);
    const { tools } = res.body.result;
    expect(tools.length).toBeGreaterThan(0);
    const ids = new Map(operations().map((op) => [op.operationId, op.at]));
    // A tool's description ends with the operation it calls, "(POST /publications)": that one's id is its name.
    const mismatched = tools.filter((tool) => !tool.description.endsWith(`(${ids.get(tool.name)})`)).map((tool) => tool.name);
    expect(mismatched).toEqual([]);
  });

  it("declares every tag its operations use, each with a description, and no tag that none uses", () => {
    const declared = new Map((doc.tags ?? []).map((tag) => [tag.name, tag.description ?? ""]));
    const used = new Set(operations().flatMap((op) => op.tags ?? []));
    expect([...used].filter((tag) => !declared.has(tag))).toEqual([]);
    expect([...declared.keys()].filter((tag) => !used.has(tag))).toEqual([]);
    expect([...declared].filter(([, description]) => description.length < 20).map(([name]) => name)).toEqual([]);
  });

  it("says under which licence the API is and whom to ask", () => {
    expect(doc.info.license).toMatchObject({ name: "Apache License 2.0", identifier: "Apache-2.0" });
    expect(doc.info.contact).toMatchObject({ name: expect.any(String), url: expect.stringMatching(/\/docs$/) });
  });
});

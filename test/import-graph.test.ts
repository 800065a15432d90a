import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { analyse, bundled, cycles, libFolder } from "./helpers/import-graph";

/**
 * The layering of Herald's code, read from its import statements (test/helpers/import-graph.ts; run
 * `npx tsx test/helpers/import-graph.ts` for the full report):
 *
 *   functions/ (operations), queues/ (consumers), local/ (tooling)  →  lib/  →  db/
 *
 * - no circle of files importing each other;
 * - lib/ imports nothing from functions/, queues/ or local/; db/ imports nothing from outside db/;
 * - the folders of lib/ (lib/http, lib/auth, …; a file directly in lib/ counts as its own) form no loop.
 * - lib/http is the top of lib/: no domain of lib/ imports it (domain errors are lib/errors.ts's).
 *
 * Type-only imports count like any other: a type lib/ takes from functions/ still puts lib/ under
 * functions/ (the type lives in the wrong layer), although nothing of it is left in the bundle. Lazy
 * `import("…")` counts too: the bundler follows it.
 */
const graph = analyse();

/**
 * lib/http/ is the HTTP edge of lib/: it imports the domains, and no other folder of lib/ imports it back.
 * Domain code raises lib/errors.ts's DomainError, which lib/http/problem-response.ts answers as its problem.
 */
const OUTSIDE_DOMAINS = /^lib\/http\//;

/**
 * Domain imports of lib/http/ that remain, each with what is to remove it. The test fails when one of them no
 * longer exists, so this list can only shrink.
 */
const DOMAIN_IMPORTS_OF_HTTP: Record<string, string> = {};

describe("import graph", () => {
  it("resolves every relative import to a file (so nothing is missed below)", () => {
    expect(graph.unresolved).toEqual([]);
  });

  it("has no circle of files", () => {
    expect(graph.fileCycles.map((c) => c.join(" ↔ "))).toEqual([]);
  });

  it("has no arrow from lib/ up to functions/, queues/ or local/", () => {
    const up = graph.edges.filter((e) => e.from.startsWith("lib/") && /^(functions|queues|local)\//.test(e.to));
    expect(up.map((e) => `${e.from}:${e.line} → ${e.to}${e.typeOnly ? " (type)" : ""}`)).toEqual([]);
  });

  it("has no arrow from db/ to anything outside db/", () => {
    const out = graph.edges.filter((e) => e.from.startsWith("db/") && !e.to.startsWith("db/"));
    expect(out.map((e) => `${e.from}:${e.line} → ${e.to}${e.typeOnly ? " (type)" : ""}`)).toEqual([]);
  });

  it("has no loop between the folders of lib/", () => {
    const arrows = graph.edges
      .map((e) => ({ ...e, fromFolder: libFolder(e.from), toFolder: libFolder(e.to) }))
      .filter((e) => e.fromFolder && e.toFolder && e.fromFolder !== e.toFolder);
    const folders = [...new Set(arrows.flatMap((e) => [e.fromFolder!, e.toFolder!]))];
    const loops = cycles(
      folders,
      arrows.map((e) => ({ from: e.fromFolder!, to: e.toFolder! })),
    ).map((members) => ({
      folders: members.join(" ↔ "),
      through: arrows
        .filter((e) => members.includes(e.fromFolder!) && members.includes(e.toFolder!))
        .map((e) => `${e.from}:${e.line} → ${e.to}${e.typeOnly ? " (type)" : ""}`),
    }));
    expect(loops).toEqual([]);
  });

  it("has no import of lib/http/ from the domain folders of lib/", () => {
    const imports = graph.edges
      .filter((e) => e.from.startsWith("lib/") && !OUTSIDE_DOMAINS.test(e.from) && e.to.startsWith("lib/http/"))
      .filter((e) => !Object.hasOwn(DOMAIN_IMPORTS_OF_HTTP, `${e.from} → ${e.to}`));
    expect(imports.map((e) => `${e.from}:${e.line} → ${e.to}${e.typeOnly ? " (type)" : ""}`)).toEqual([]);
  });

  it("still has every import DOMAIN_IMPORTS_OF_HTTP lists (remove the ones that are gone)", () => {
    const present = new Set(graph.edges.map((e) => `${e.from} → ${e.to}`));
    expect(Object.keys(DOMAIN_IMPORTS_OF_HTTP).filter((arrow) => !present.has(arrow))).toEqual([]);
  });
});

describe("/healthz's queue probe", () => {
  // Only a Worker that sends jobs checks SQS in /healthz, so only its bundle carries the AWS SDK for it.
  const entries = graph.files.filter((f) => /^functions\/[^/]+\/worker\.ts$/.test(f) || f === "functions/all-groups.ts");

  it.each(entries)("%s passes lib/jobs/queue-probe.ts exactly when it bundles the outbox's sender", (entry) => {
    const files = bundled(entry, graph.edges);
    expect(files.has("lib/jobs/queue-probe.ts")).toBe(files.has("lib/jobs/outbox.ts"));
  });
});

describe("the import reader itself", () => {
  // A tree of its own, so a reader that silently saw nothing could not pass the checks above.
  const root = mkdtempSync(path.join(tmpdir(), "import-graph-"));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  write("lib/a/one.ts", 'import type { Two } from "../b/two";\nexport type One = Two;\n');
  write("lib/b/two.ts", 'import { type One } from "../a/one";\nexport { three } from "./three";\nexport type Two = One;\n');
  write("lib/b/three.ts", 'export const three = () => import("../../functions/up");\n// import "../../functions/not-an-import";\n');
  write("functions/up/index.ts", "export {};\n");
  write("db/table.ts", 'export type T = import("../lib/b/two").Two;\n');
  const a = analyse(root);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("reads type-only imports, re-exports, lazy imports and import types, not comments", () => {
    expect(a.edges.map((e) => `${e.from} → ${e.to}${e.typeOnly ? " (type)" : ""}`).sort()).toEqual([
      "db/table.ts → lib/b/two.ts (type)",
      "lib/a/one.ts → lib/b/two.ts (type)",
      "lib/b/three.ts → functions/up/index.ts",
      "lib/b/two.ts → lib/a/one.ts (type)",
      "lib/b/two.ts → lib/b/three.ts",
    ]);
  });

  it("finds the circle, the folder loop and the arrows up", () => {
    expect(a.fileCycles).toEqual([["lib/a/one.ts", "lib/b/two.ts"]]);
    expect(a.folderCycles).toEqual([["lib/a", "lib/b"]]);
    expect(a.libToFunctions).toEqual(["lib/b/three.ts:1 → functions/up/index.ts"]);
    expect(a.dbToLib).toEqual(["db/table.ts:1 → lib/b/two.ts (type)"]);
  });
});

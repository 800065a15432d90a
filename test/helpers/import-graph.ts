/**
 * The import graph of Herald's own code (functions/, lib/, db/, queues/, local/), read with the TypeScript
 * compiler's parser, so a string that merely looks like an import (in a comment, a template) is not one.
 *
 * An edge is any module reference that names a relative path: `import … from`, `import type … from`,
 * `export … from`, a bare `import "…"`, `import("…")` (a lazy import is still a dependency: the bundler
 * follows it), and `import("…").T` in a type position. Every edge records whether it is type-only, but the
 * checks in test/import-graph.test.ts count them all: a type that lib/ imports from functions/ still ties
 * lib/ to functions/ (the type's home is in the wrong layer), even if nothing of it survives compilation.
 * Package imports ("hono", "node:fs") are not edges: they are outside the layering.
 *
 * Run it directly for a report: `npx tsx test/helpers/import-graph.ts`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const ROOTS = ["functions", "lib", "db", "queues", "local"] as const;

export type Edge = { from: string; to: string; typeOnly: boolean; line: number };

/** Repo-relative, forward-slash paths of every .ts file under the roots (no .d.ts). */
export function sourceFiles(root = REPO_ROOT): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(path.join(root, dir))) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      const rel = `${dir}/${name}`;
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
      else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(rel);
    }
  };
  for (const dir of ROOTS) if (existsSync(path.join(root, dir))) walk(dir);
  return out.sort();
}

/** Resolves a relative specifier the way the bundler does (moduleResolution "Bundler"): x.ts, then x/index.ts. */
function resolve(fromFile: string, spec: string, root: string): string | undefined {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), spec.replace(/\.js$/, "")));
  for (const candidate of [base, `${base}.ts`, `${base}/index.ts`]) {
    const abs = path.join(root, candidate);
    if (existsSync(abs) && statSync(abs).isFile() && candidate.endsWith(".ts")) return candidate;
  }
  return undefined;
}

/** The edges out of one file; `unresolved` collects relative specifiers that name no file. */
export function edgesOf(file: string, root = REPO_ROOT, unresolved: string[] = []): Edge[] {
  const text = readFileSync(path.join(root, file), "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edges: Edge[] = [];
  const add = (spec: ts.Expression | undefined, typeOnly: boolean, node: ts.Node) => {
    if (!spec || !ts.isStringLiteralLike(spec) || !spec.text.startsWith(".")) return;
    const to = resolve(file, spec.text, root);
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    if (to) edges.push({ from: file, to, typeOnly, line });
    else unresolved.push(`${file}:${line} → ${spec.text}`);
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      // `import type {…}`, or `import {type A, type B}` where every named binding is a type.
      const allNamedAreTypes =
        !!clause &&
        !clause.name &&
        !!clause.namedBindings &&
        ts.isNamedImports(clause.namedBindings) &&
        clause.namedBindings.elements.length > 0 &&
        clause.namedBindings.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier, !!clause && (clause.isTypeOnly || allNamedAreTypes), node);
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly, node);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg)) add(arg.literal as ts.Expression, true, node);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false, node);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

export function buildGraph(root = REPO_ROOT) {
  const files = sourceFiles(root);
  const unresolved: string[] = [];
  const edges = files.flatMap((f) => edgesOf(f, root, unresolved));
  return { files, edges, unresolved };
}

/**
 * Strongly connected components with more than one member (or a node importing itself), by Tarjan's algorithm:
 * each is a circle of imports. Sorted, so a report is stable.
 */
export function cycles(nodes: string[], edges: { from: string; to: string }[]): string[][] {
  const next = new Map<string, string[]>(nodes.map((n) => [n, []]));
  for (const e of edges) next.get(e.from)?.push(e.to);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const strong = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) strong(n);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** Every file `entry` loads when it runs: value imports followed transitively (type-only ones vanish in the bundle). */
export function bundled(entry: string, edges: Edge[]): Set<string> {
  const seen = new Set([entry]);
  const todo = [entry];
  while (todo.length) {
    const file = todo.pop()!;
    for (const e of edges) if (e.from === file && !e.typeOnly && !seen.has(e.to)) seen.add(e.to), todo.push(e.to);
  }
  return seen;
}

/** The folder a lib/ file belongs to: lib/http/app.ts → lib/http; a file directly in lib/ is its own unit. */
export function libFolder(file: string): string | undefined {
  const parts = file.split("/");
  if (parts[0] !== "lib") return undefined;
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : file;
}

/** Everything the layering rules look at, so the test and the command-line report say the same. */
export function analyse(root = REPO_ROOT) {
  const { files, edges, unresolved } = buildGraph(root);
  const fileCycles = cycles(files, edges);
  const folderEdges = edges
    .map((e) => ({ ...e, fromFolder: libFolder(e.from), toFolder: libFolder(e.to) }))
    .filter((e) => e.fromFolder && e.toFolder && e.fromFolder !== e.toFolder);
  const folders = [...new Set(folderEdges.flatMap((e) => [e.fromFolder!, e.toFolder!]))].sort();
  const folderCycles = cycles(
    folders,
    folderEdges.map((e) => ({ from: e.fromFolder!, to: e.toFolder! })),
  );
  // For each folder loop, the file edges that make it, so the report says what to move.
  const folderCycleEdges = folderCycles.map((members) =>
    folderEdges
      .filter((e) => members.includes(e.fromFolder!) && members.includes(e.toFolder!))
      .map((e) => `${e.from}:${e.line} → ${e.to}${e.typeOnly ? " (type)" : ""}`),
  );
  const upward = (fromRoot: string, toRoot: string) =>
    edges
      .filter((e) => e.from.startsWith(`${fromRoot}/`) && e.to.startsWith(`${toRoot}/`))
      .map((e) => `${e.from}:${e.line} → ${e.to}${e.typeOnly ? " (type)" : ""}`);
  return {
    files,
    edges,
    unresolved,
    fileCycles,
    folderCycles,
    folderCycleEdges,
    libToFunctions: upward("lib", "functions"),
    dbToLib: upward("db", "lib"),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const a = analyse();
  console.log(`${a.files.length} files, ${a.edges.length} edges (${a.edges.filter((e) => e.typeOnly).length} type-only)`);
  console.log(`\nfile cycles: ${a.fileCycles.length}`);
  for (const c of a.fileCycles) console.log(`  ${c.join(" ↔ ")}`);
  console.log(`\nfolder cycles inside lib/: ${a.folderCycles.length}`);
  a.folderCycles.forEach((c, i) => {
    console.log(`  ${c.join(" ↔ ")}`);
    for (const e of a.folderCycleEdges[i]!) console.log(`      ${e}`);
  });
  console.log(`\nlib/ → functions/: ${a.libToFunctions.length}`);
  for (const e of a.libToFunctions) console.log(`  ${e}`);
  console.log(`\ndb/ → lib/: ${a.dbToLib.length}`);
  for (const e of a.dbToLib) console.log(`  ${e}`);
  if (a.unresolved.length) console.log(`\nunresolved: ${a.unresolved.join(", ")}`);
}

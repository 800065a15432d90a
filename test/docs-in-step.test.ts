import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { generatedPages, headingAnchor } from "../local/docs/render";
import { REPO_ROOT } from "../local/services/wrangler";

it.each(Object.entries(generatedPages()))("%s is what the code gives (else run npm run docs:gen)", (page, text) => {
  expect(fs.readFileSync(path.join(REPO_ROOT, page), "utf8")).toBe(text);
});

/** README.md, CONTRIBUTING.md and every page under docs/. */
function pages(): string[] {
  const docs = fs.readdirSync(path.join(REPO_ROOT, "docs"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md"));
  return ["README.md", "CONTRIBUTING.md", ...docs.map((f) => path.join("docs", f))].filter((f) => fs.existsSync(path.join(REPO_ROOT, f)));
}

const anchorsOf = (file: string) =>
  new Set(
    fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => headingAnchor(l.replace(/^#+ /, ""))),
  );

it("every relative link of the README and docs/ names a file (and a heading) that exists", () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of pages()) {
    const text = fs.readFileSync(path.join(REPO_ROOT, page), "utf8").replace(/```[\s\S]*?```/g, "");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [file, hash] = target.split("#");
      const resolved = file ? path.resolve(REPO_ROOT, path.dirname(page), file) : path.join(REPO_ROOT, page);
      // Links out of the repository (../shared/, the developers' guide beside it) are not this test's to check.
      if (path.relative(REPO_ROOT, resolved).startsWith("..")) continue;
      checked++;
      if (!fs.existsSync(resolved)) broken.push(`${page}: ${target}`);
      else if (hash && resolved.endsWith(".md") && !anchorsOf(resolved).has(hash)) broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  expect(checked).toBeGreaterThan(40);
  expect(broken).toEqual([]);
});

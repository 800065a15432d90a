/**
 * Writes docs/'s generated pages from the code (`npm run docs:gen`); with `--check`, writes nothing and exits 1 when
 * a page differs from what the code gives (test/docs-in-step.test.ts asserts the same).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatedPages } from "./docs/render";

const root = join(import.meta.dirname, "..");
const check = process.argv.includes("--check");
let stale = 0;
for (const [path, text] of Object.entries(generatedPages())) {
  const file = join(root, path);
  let current: string | null = null;
  try {
    current = readFileSync(file, "utf8");
  } catch {}
  if (current === text) continue;
  if (check) {
    stale++;
    console.error(`${path} is out of step with the code: run npm run docs:gen`);
  } else {
    writeFileSync(file, text);
    console.log(`wrote ${path}`);
  }
}
process.exit(stale ? 1 : 0);

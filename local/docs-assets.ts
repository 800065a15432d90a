import fs from "node:fs";
import path from "node:path";
import { DOCS_SCRIPT_PATH } from "../lib/http/docs-page";
import { REPO_ROOT } from "./services/wrangler";

/** wrangler.toml's `assets.directory`: the gateway's static files, written here before a bundle or a start (dist/ is not in git). */
export const ASSETS_DIR = path.join(REPO_ROOT, "dist/assets");

/** The reference renderer's browser bundle as its package ships it (a devDependency: only this file is served). */
export const SCALAR_BUNDLE = path.join(REPO_ROOT, "node_modules/@scalar/api-reference/dist/browser/standalone.js");

/**
 * Write the gateway's static assets: /docs's script (lib/http/docs-page.ts) at DOCS_SCRIPT_PATH. A file already
 * there with the same bytes is left alone. Returns the folder.
 */
export function writeDocsAssets(dir = ASSETS_DIR): string {
  if (!fs.existsSync(SCALAR_BUNDLE)) throw new Error(`${path.relative(REPO_ROOT, SCALAR_BUNDLE)} is missing: run npm ci`);
  const target = path.join(dir, DOCS_SCRIPT_PATH);
  const bundle = fs.readFileSync(SCALAR_BUNDLE);
  if (!fs.existsSync(target) || !fs.readFileSync(target).equals(bundle)) {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, bundle);
  }
  return dir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(REPO_ROOT, "local/docs-assets.ts")) {
  console.log(`wrote ${path.relative(REPO_ROOT, writeDocsAssets())}${DOCS_SCRIPT_PATH}`);
}

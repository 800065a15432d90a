// Usage: node guard.mjs <command> [args…], spawned with `detached: true` and stdin a pipe from its parent.
//
// Runs the command in the guard's own process group and stops that whole group (SIGTERM, then SIGKILL)
// as soon as the parent goes away: its end of the stdin pipe closes even when it is killed with
// SIGKILL, which no signal handler of its own could see. So a launcher that dies hard still leaves no
// wrangler or workerd behind. Plain JavaScript, so it starts in a few milliseconds without tsx.
import { spawn } from "node:child_process";

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"] });

let orphaned = false;
function parentGone() {
  if (orphaned) return;
  orphaned = true;
  try {
    process.kill(-process.pid, "SIGTERM");
  } catch {}
  setTimeout(() => {
    try {
      process.kill(-process.pid, "SIGKILL");
    } catch {}
  }, 5000).unref();
}

process.stdin.on("end", parentGone);
process.stdin.on("close", parentGone);
process.stdin.on("error", parentGone);
process.stdin.resume();

// The parent stops the group with a signal to all of it: the command handles its own; the guard only
// waits for it to finish, so that the group is empty once the command has cleaned up.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => {});

child.on("error", (error) => {
  process.stderr.write(`cannot run ${command}: ${error.message}\n`);
  process.exit(127);
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));

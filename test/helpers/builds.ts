import { eq } from "drizzle-orm";
import { publicationBuilds } from "../../db/schema";
import { drainQueue } from "../../lib/jobs/consumer";
import { relayOutbox } from "../../lib/jobs/outbox";
import { buildGenerate } from "../../queues/build-generate";
import { env, withDb } from "./harness";

export const buildState = (id: string) =>
  withDb(async (db) => (await db.select({ s: publicationBuilds.state }).from(publicationBuilds).where(eq(publicationBuilds.id, id)))[0]?.s);

/** The real path: outbox relay → SQS → queues/build-generate.ts, until the build has finished. */
export async function runBuildJob(id: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await withDb((db) => relayOutbox(db, env, { kinds: ["build.generate"] }));
    await drainQueue(env, buildGenerate, { waitSeconds: 0, budgetMs: 2000 });
    const state = await buildState(id);
    if (state === "completed" || state === "failed") return state;
    if (Date.now() > deadline) throw new Error(`build still ${state} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

import { failBuild, runBuild } from "../lib/builds/run";
import { modelFromSettings } from "../lib/builds/model";
import type { ConsumerDefinition } from "../lib/jobs/consumer";
import { consumerRuns } from "../lib/jobs/consumer-worker";
import { queueWorker } from "../lib/jobs/queue-worker";

/**
 * Generates publication builds (lib/builds/run.ts). "steps" mode: it fetches URL sources and may call a
 * language model, so it commits its own steps and is safe to run again (a finished build is left alone).
 */
export const buildGenerate: ConsumerDefinition<"build.generate"> = {
  kind: "build.generate",
  mode: "steps",
  async handle({ db, env, job }) {
    await runBuild(db, env, job.payload.build_id, { model: await modelFromSettings(env, db) });
  },
  async onGiveUp({ db, job, error }) {
    await failBuild(db, job.payload.build_id, error);
  },
};

export default queueWorker(consumerRuns(buildGenerate));

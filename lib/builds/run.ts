import { and, eq, inArray, sql } from "drizzle-orm";
import { media, publicationBuilds, socialAccounts } from "../../db/schema";
import { aiBudgetBreach } from "../billing/ai-budget";
import { inOneTransaction } from "../db/batch";
import type { Database } from "../db/client";
import { buildFinishedStatements } from "../events/subjects";
import type { Env } from "../env";
import { allowPrivateUrls } from "../accounts/account-context";
import { fetchSource } from "./fetch-source";
import { draftWithModel, type ModelCall } from "./model";
import { planBuild } from "./plan";
import type { BuildInputValue, ModelDraft, PlanContext, ReviewFlag } from "./plan-types";

/** The most text kept from one URL source (the same bound as a text source in the request). */
const URL_TEXT_MAX = 100_000;

export type BuildPhase = "queued" | "reading_sources" | "drafting" | "planning" | "done";

export interface RunOptions {
  /** The language model to ask, when one is configured (lib/builds/model.ts); null: the planner alone. */
  model: ModelCall | null;
}

/**
 * Generate one build: read its URL sources, ask the model when one is configured (and the plan's AI budget
 * allows), plan, and store the result, moving `running` → `completed` | `failed` with `phase` saying where it
 * stopped. Safe to run again after a crash: it only starts from `queued` or `running` and only finishes a
 * `running` build, so a redelivered job never overwrites a finished one, and the model is asked at most once
 * per build (its answer is kept and reused). Network work happens outside any transaction.
 */
export async function runBuild(db: Database, env: Env, buildId: string, opts: RunOptions): Promise<void> {
  const [row] = await db
    .update(publicationBuilds)
    .set({ state: "running", phase: "reading_sources", updatedAt: sql`now()` })
    .where(and(eq(publicationBuilds.id, buildId), inArray(publicationBuilds.state, ["queued", "running"])))
    .returning();
  if (!row) return;
  const input = structuredClone(row.input) as unknown as BuildInputValue;
  const context: PlanContext = { inactive_account_ids: [], media: {}, unreadable: {} };
  const extraFlags: ReviewFlag[] = [];

  for (const source of input.sources) {
    if (source.kind !== "url" || source.text !== null) continue;
    const url = row.contextUrls[input.sources.filter((s) => s.kind === "url").indexOf(source)];
    const fetched = url ? await fetchSource(url, { allowPrivateUrls: allowPrivateUrls(env) }) : { ok: false as const, reason: "The source has no URL." };
    if (!fetched.ok) {
      context.unreadable[source.id] = fetched.reason;
      continue;
    }
    source.text = fetched.text.length > URL_TEXT_MAX ? fetched.text.slice(0, URL_TEXT_MAX) : fetched.text;
    source.mime_type = fetched.mimeType;
    if (fetched.text.length > URL_TEXT_MAX) {
      extraFlags.push({
        account_id: "",
        field: `sources.${source.id}`,
        message: "Only the beginning of this page was read (it is longer than a build reads).",
        severity: "info",
      });
    }
  }

  // Media as they are now, of this workspace only (the request already checked they were its own).
  const mediaIds = row.assets.map((a) => a.media_id);
  const items = mediaIds.length
    ? await db
        .select()
        .from(media)
        .where(and(eq(media.workspaceId, row.workspaceId), inArray(media.id, mediaIds)))
    : [];
  input.sources.forEach((source, i) => {
    if (source.kind !== "media") return;
    const asset = row.assets[input.sources.slice(0, i).filter((s) => s.kind === "media").length];
    const item = items.find((m) => m.id === asset?.media_id);
    if (!item || item.trashedAt) context.unreadable[source.id] = `The media item ${source.label} is no longer in the library.`;
    else context.media[source.id] = { media_id: item.id, media_type: item.mediaType, mime_type: item.mimeType, size: item.size, alt_text: item.altText };
  });

  const accountIds = input.destinations.map((d) => d.account_id);
  const accounts = await db
    .select({ id: socialAccounts.id, isActive: socialAccounts.isActive, disconnectedAt: socialAccounts.disconnectedAt })
    .from(socialAccounts)
    .where(and(eq(socialAccounts.workspaceId, row.workspaceId), inArray(socialAccounts.id, accountIds)));
  const usable = new Set(accounts.filter((a) => a.isActive && !a.disconnectedAt).map((a) => a.id));
  context.inactive_account_ids = accountIds.filter((id) => !usable.has(id));

  let draft: ModelDraft | null = null;
  if (opts.model) {
    await setPhase(db, buildId, "drafting");
    // The AI budget as discovery and the build's creation check it, asked only before a new (paid) call.
    const budget = async () => {
      const breach = await aiBudgetBreach(env, db, row.workspaceId);
      return breach ? `The ${breach.planId} plan's AI budget for this period is used up (${breach.usage} of ${breach.allowed} micro-USD).` : null;
    };
    const drafted = await draftWithModel(db, opts.model, { workspaceId: row.workspaceId, buildId }, input, budget);
    // Another delivery of this job holds the model call: retry later (its answer is then reused), never ask twice.
    if (drafted.inFlight) throw new Error("Another delivery of this build's job is asking the language model; retrying later.");
    draft = drafted.draft;
    extraFlags.push(...drafted.flags);
  }

  await setPhase(db, buildId, "planning");
  const outcome = planBuild(input, context, draft);
  outcome.result.review_flags.unshift(...extraFlags);
  const finish = (values: Partial<typeof publicationBuilds.$inferInsert> & { state: "completed" | "failed" }) =>
    inOneTransaction(db, (q) => [
      q
        .update(publicationBuilds)
        .set({ ...values, input, revision: sql`${publicationBuilds.revision} + 1`, updatedAt: sql`now()` })
        .where(and(eq(publicationBuilds.id, buildId), eq(publicationBuilds.state, "running"))),
      // Its outbound event (lib/events), written only if the update applied.
      ...buildFinishedStatements(row.workspaceId, buildId, values.state),
    ]);
  if (outcome.empty) {
    const allUnreadable = input.sources.length > 0 && input.sources.every((s) => context.unreadable[s.id]) && !input.idea;
    await finish({
      state: "failed",
      phase: allUnreadable ? "reading_sources" : "planning",
      errorCode: allUnreadable ? "sources_unreadable" : "nothing_to_plan",
      errorMessage: allUnreadable
        ? `No source could be read, so there is nothing to plan from: ${Object.values(context.unreadable).join(" ").slice(0, 900)}`
        : "Nothing to plan from: the idea and sources give no publishable text or media.",
      result: outcome.result,
    });
    return;
  }
  await finish({
    state: "completed",
    phase: "done",
    result: outcome.result,
    mediaPlan: outcome.mediaIds,
    model: draft?.model ?? null,
    errorCode: null,
    errorMessage: null,
  });
}

async function setPhase(db: Database, buildId: string, phase: BuildPhase): Promise<void> {
  await db
    .update(publicationBuilds)
    .set({ phase, updatedAt: sql`now()` })
    .where(and(eq(publicationBuilds.id, buildId), eq(publicationBuilds.state, "running")));
}

/** The last attempt failed unexpectedly: the build fails where it stopped, with a code (never content) and a message. */
export async function failBuild(db: Database, buildId: string, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  const workspaceId = sql`select ${publicationBuilds.workspaceId} from ${publicationBuilds} where ${publicationBuilds.id} = ${buildId}`;
  await inOneTransaction(db, (q) => [
    q
      .update(publicationBuilds)
      .set({
        state: "failed",
        errorCode: "build_error",
        errorMessage: `The build could not be generated: ${message.slice(0, 500)}`,
        revision: sql`${publicationBuilds.revision} + 1`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(publicationBuilds.id, buildId), inArray(publicationBuilds.state, ["queued", "running"]))),
    // Its outbound event (lib/events), written only if the update applied.
    ...buildFinishedStatements(workspaceId, buildId, "failed"),
  ]);
}

import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import { providerCallAnswers, providerCostEvents } from "../../db/schema";
import type { Database, Queryable } from "../db/client";
import type { Env } from "../env";
import { newId } from "../ids";
import { allowPrivateUrls } from "../accounts/account-context";
import { providerFetch } from "../providers/http";
import { settingsInForce } from "../settings";
import type { BuildInputValue, ModelDraft, ReviewFlag } from "./plan-types";

/** An OpenAI-compatible chat completions endpoint, from instance settings (the key a secret). */
export interface ModelCall {
  baseUrl: string;
  model: string;
  apiKey: string;
  allowPrivateUrls: boolean;
  /** Price per 1,000 tokens in micro-USD (AI_COST_MICROUSD_PER_1K_TOKENS; 0 when not set). */
  microUsdPer1kTokens: number;
}

const DEFAULT_BASE = "https://api.openai.com/v1";
const DEFAULT_MODEL = "gpt-4o-mini";
const TIMEOUT_MS = 60_000;
/** How long the body-less look at the endpoint may take before the call is given up as unreachable. */
const PROBE_TIMEOUT_MS = 10_000;
/** Source text sent to the model at most (the cost of a call stays bounded whatever the sources). */
export const PROMPT_SOURCE_BUDGET = 24_000;

/** The model when an API key is configured; null means the planner alone runs (and `model` says so). */
export async function modelFromSettings(env: Env, q: Queryable): Promise<ModelCall | null> {
  const settings = await settingsInForce(env, q);
  const apiKey = settings.get("ai_api_key");
  if (!apiKey) return null;
  const price = Number((env as unknown as Record<string, unknown>).AI_COST_MICROUSD_PER_1K_TOKENS ?? 0);
  return {
    baseUrl: (settings.get("ai_base_url") ?? DEFAULT_BASE).replace(/\/+$/, ""),
    model: settings.get("ai_model") ?? DEFAULT_MODEL,
    apiKey,
    allowPrivateUrls: allowPrivateUrls(env),
    microUsdPer1kTokens: Number.isFinite(price) && price > 0 ? price : 0,
  };
}

const Completion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative().optional(),
      completion_tokens: z.number().int().nonnegative().optional(),
      total_tokens: z.number().int().nonnegative().optional(),
    })
    .optional(),
});

/**
 * `status`: the HTTP status the model answered with, when it answered with an error (429: rate-limited).
 * `inFlight`: another attempt holds the same one-time call and has not finished it yet (try again later).
 */
export type ModelAnswer<T> = { ok: true; value: T } | { ok: false; reason: string; status?: number; inFlight?: boolean };

export interface CallOptions {
  /**
   * Names a call that is made at most once whatever happens (e.g. `<build id>.draft`): its ledger row is the claim, and
   * its answer is kept (provider_call_answers), so a redelivered job reuses what was paid for instead of paying again.
   */
  once?: string;
  /** Asked before a new call is made (not before an answer is reused): a reason not to spend, or null. */
  mayCall?: () => Promise<string | null>;
}

/** A claimed call older than this without an answer was lost (its worker stopped): it is never made again. */
const CLAIM_STALE_SECONDS = Math.ceil((TIMEOUT_MS + PROBE_TIMEOUT_MS) / 1000) + 60;

/** What an earlier attempt of a one-time call left: its answer, still in flight, or nothing usable. */
async function earlierCall<T>(db: Database, eventId: string, schema: z.ZodType<T>): Promise<ModelAnswer<T> | null> {
  const [prior] = await db
    .select({
      status: providerCostEvents.status,
      answer: providerCallAnswers.answer,
      // The database's clock decides whether a claim has lapsed (CONTRACT §9).
      stale: sql<boolean>`now() - ${providerCostEvents.createdAt} > make_interval(secs => ${CLAIM_STALE_SECONDS})`,
    })
    .from(providerCostEvents)
    .leftJoin(providerCallAnswers, eq(providerCallAnswers.costEventId, providerCostEvents.id))
    .where(eq(providerCostEvents.id, eventId));
  if (!prior) return null;
  if (prior.answer !== null) {
    const checked = schema.safeParse(prior.answer);
    if (checked.success) return { ok: true, value: checked.data };
    return { ok: false, reason: "The language model's earlier answer does not have the shape asked for." };
  }
  if (prior.status === "reserved" && !prior.stale) return { ok: false, inFlight: true, reason: "Another attempt is asking the language model right now." };
  return { ok: false, reason: "The language model was asked on an earlier attempt, which left no usable answer; it is not asked (and paid) twice." };
}

/**
 * One chat completion asking for strict JSON, validated by `schema`. Every call is in the
 * provider_cost_events ledger: reserved before it is sent (so an interrupted call still shows),
 * committed with the tokens it used, or released when nothing was charged. A refusal, an error or
 * an answer that is not the JSON asked for is an answer (`ok: false`), never an exception.
 */
export async function chatJson<T>(
  db: Database,
  call: ModelCall,
  ledger: { workspaceId: string; buildId: string | null; operation: string },
  messages: { role: "system" | "user"; content: string }[],
  schema: z.ZodType<T>,
  opts: CallOptions = {},
): Promise<ModelAnswer<T>> {
  const eventId = opts.once ? `pce_once_${opts.once}` : newId("pce");
  if (opts.once) {
    const earlier = await earlierCall(db, eventId, schema);
    if (earlier) return earlier;
  }
  const refusal = (await opts.mayCall?.()) ?? null;
  if (refusal) return { ok: false, reason: refusal };
  const [claimed] = await db
    .insert(providerCostEvents)
    .values({
      id: eventId,
      workspaceId: ledger.workspaceId,
      provider: "openai-compatible",
      operation: ledger.operation,
      status: "reserved",
      buildId: ledger.buildId,
    })
    .onConflictDoNothing()
    .returning({ id: providerCostEvents.id });
  // Another attempt claimed the same one-time call between the look and the claim.
  if (!claimed) return (await earlierCall(db, eventId, schema)) ?? { ok: false, reason: "The language model call could not be claimed." };
  const url = `${call.baseUrl}/chat/completions`;
  let res: Response;
  try {
    await probeWithoutBody(url, call);
    res = await providerFetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${call.apiKey}`, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ model: call.model, messages, temperature: 0, response_format: { type: "json_object" } }),
      allowPrivateUrls: call.allowPrivateUrls,
      timeoutMs: TIMEOUT_MS,
    });
  } catch (err) {
    await db.update(providerCostEvents).set({ status: "released" }).where(eq(providerCostEvents.id, eventId));
    return { ok: false, reason: `The language model could not be reached (${(err as Error)?.message ?? "network error"}).` };
  }
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  const parsed = Completion.safeParse(body);
  let json: unknown;
  let isJson = false;
  if (res.ok && parsed.success) {
    try {
      json = JSON.parse(parsed.data.choices[0].message.content ?? "");
      isJson = true;
    } catch {
      isJson = false;
    }
  }
  // Kept before the ledger is committed: a worker stopped in between leaves the answer to reuse, never a second call.
  if (opts.once && isJson && json !== null) await db.insert(providerCallAnswers).values({ costEventId: eventId, answer: json }).onConflictDoNothing();
  const tokens = parsed.success
    ? (parsed.data.usage?.total_tokens ?? (parsed.data.usage?.prompt_tokens ?? 0) + (parsed.data.usage?.completion_tokens ?? 0))
    : 0;
  await db
    .update(providerCostEvents)
    .set(res.ok ? { status: "committed", units: tokens, costMicrousd: Math.ceil((tokens * call.microUsdPer1kTokens) / 1000) } : { status: "released" })
    .where(eq(providerCostEvents.id, eventId));
  if (!res.ok) return { ok: false, reason: `The language model answered ${res.status}.`, status: res.status };
  if (!parsed.success) return { ok: false, reason: "The language model's answer is not a chat completion." };
  if (!isJson) return { ok: false, reason: "The language model did not answer with JSON." };
  const checked = schema.safeParse(json);
  if (!checked.success)
    return { ok: false, reason: `The language model's JSON does not have the shape asked for (${checked.error.issues[0]?.path.join(".") || "root"}).` };
  return { ok: true, value: checked.data };
}

/**
 * A HEAD to the endpoint, without the key, before the request that carries the prompt. In workerd (`npm start`, the
 * workerd tests) a fetch with a body to a host whose name does not resolve fails twice: the fetch rejects, which
 * chatJson catches, and the upload of its body fails on its own, outside any promise the Worker holds, which workerd
 * logs as `Uncaught Error: internal error`. A request without a body fails only the first way (verified on workerd
 * 2026-04-26 with string, bytes, Blob and stream bodies; a refused connection fails cleanly either way). So a name that
 * does not resolve is found here and the prompt is never sent to it. Any answer will do (providers answer a HEAD
 * with 404 or 405): it only shows that the name resolves and the host takes connections.
 */
async function probeWithoutBody(url: string, call: ModelCall): Promise<void> {
  const res = await providerFetch(url, { method: "HEAD", allowPrivateUrls: call.allowPrivateUrls, timeoutMs: PROBE_TIMEOUT_MS });
  await res.body?.cancel();
}

/** What the model must answer for a build: bounded so a runaway answer is refused, not stored. */
export const BuildDraftAnswer = z.object({
  canonical_text: z.string().max(20_000),
  thesis: z.string().max(1_000).optional(),
  destinations: z.array(z.object({ account_id: z.string().max(100), text: z.string().max(20_000) })).max(50),
});

/** Sources as the model sees them: each clipped so their sum stays within PROMPT_SOURCE_BUDGET. */
function sourcesForPrompt(input: BuildInputValue): string {
  const readable = input.sources.filter((s) => s.text);
  const share = Math.floor(PROMPT_SOURCE_BUDGET / Math.max(1, readable.length));
  return readable
    .map((s) => `[${s.id}] (${s.publishable ? "may be quoted" : "background only, do not quote"}) ${s.label}\n${s.text!.slice(0, share)}`)
    .join("\n\n");
}

/**
 * Ask the model to draft a build's canonical text and per-destination wording. The planner then holds
 * the draft to the same limits and source checks as its own text (repairing or flagging); a call
 * that fails leaves the planner alone at work, with a review flag saying so.
 */
export async function draftWithModel(
  db: Database,
  call: ModelCall,
  ids: { workspaceId: string; buildId: string },
  input: BuildInputValue,
  mayCall?: () => Promise<string | null>,
): Promise<{ draft: ModelDraft | null; flags: ReviewFlag[]; inFlight: boolean }> {
  const destinations = input.destinations.map((d) => {
    const profile = d.allowed_output_profiles.at(-1);
    return `- ${d.account_id} (${d.platform}; up to ${profile?.max_segments ?? 1} posts of ${profile?.text_limit ?? 300} characters)${d.voice ? `; voice ${d.voice.name}: ${d.voice.definition.identity} ${d.voice.definition.guidance} Avoid: ${d.voice.definition.avoidances.join(", ") || "nothing listed"}` : ""}`;
  });
  const direction = Object.entries(input.direction)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}: ${v}`)
    .join("; ");
  const answer = await chatJson(
    db,
    call,
    { workspaceId: ids.workspaceId, buildId: ids.buildId, operation: "build.draft" },
    [
      {
        role: "system",
        content:
          'You draft social media publications from the sources given, and nothing else: every sentence must rest on a source. Answer with JSON only: {"canonical_text": string, "thesis": string, "destinations": [{"account_id": string, "text": string}]}.',
      },
      {
        role: "user",
        content: `Idea: ${input.idea ?? "(none)"}\nDirection: ${direction || "(none)"}\nDestinations:\n${destinations.join("\n")}\n\nSources:\n${sourcesForPrompt(input)}`,
      },
    ],
    BuildDraftAnswer,
    // One draft per build, however often its job is delivered.
    { once: `${ids.buildId}.draft`, mayCall },
  );
  if (!answer.ok)
    return {
      draft: null,
      flags: [{ account_id: "", field: "model", message: `${answer.reason} The planner wrote this build alone.`, severity: "info" }],
      inFlight: answer.inFlight === true,
    };
  return { draft: { model: call.model, ...answer.value }, flags: [], inFlight: false };
}

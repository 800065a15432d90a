import { elapsed, readState, TERMINAL, TERMINAL_BOUND_MS, type Run } from "./world";
import { MAX_ATTEMPTS } from "../../lib/jobs/retry-policy";

export interface RunVerdict {
  lost: number;
  duplicated: number;
  stuck: number;
  failures: string[];
}

/**
 * The three promises, checked at the receiver and the PDS against what Herald recorded:
 * - stuck: a rendition not terminal (published, failed, canceled) within TERMINAL_BOUND_MS of simulated time, or
 *   more than 8 attempts in one delivery;
 * - duplicated: a rendition delivered under two webhook-ids (the same webhook-id twice is allowed: the receiver
 *   drops it), or two records at one position of a Bluesky thread;
 * - lost: a segment Herald says is published that is not at the provider, or one at the provider that Herald
 *   says is not published (it should have been reconciled), unless its rendition failed `outcome-unknown`.
 */
export async function checkRun(run: Run): Promise<RunVerdict> {
  const verdict: RunVerdict = { lost: 0, duplicated: 0, stuck: 0, failures: [...run.failures] };
  const state = await readState(run);
  const { receiver, pds } = run.world;
  for (const r of state.renditions) {
    const meta = run.renditions.find((x) => x.id === r.id);
    const label = `rendition ${meta?.index ?? "?"} (${meta?.platform}, ${meta?.segments} segment(s))`;
    const terminalAt = run.terminalAt.get(r.id);
    if (!TERMINAL.has(r.status)) {
      verdict.stuck++;
      verdict.failures.push(
        `${label} still ${r.status} after ${Math.round(elapsed(run) / 60_000)} simulated minutes (attempts ${r.attempts}, lease_until ${r.lease_until ? new Date(r.lease_until).toISOString() : "null"})`,
      );
    } else if (terminalAt !== undefined && terminalAt > TERMINAL_BOUND_MS) {
      verdict.stuck++;
      verdict.failures.push(
        `${label} became ${r.status} only after ${Math.round(terminalAt / 60_000)} simulated minutes (bound ${Math.round(TERMINAL_BOUND_MS / 60_000)})`,
      );
    }
    const attempts = r.attempts - (run.attemptBase.get(r.id) ?? 0);
    if (attempts > MAX_ATTEMPTS) verdict.failures.push(`${label}: ${attempts} attempts in one delivery (at most ${MAX_ATTEMPTS})`);
    const unknownOk = r.error_code === "outcome-unknown";
    if (meta?.platform === "webhook") {
      const accepted = receiver.deliveries.filter((d) => d.body?.rendition_id === r.id);
      const raw = receiver.attempts.filter((d) => d.body?.rendition_id === r.id);
      const ids = new Set(accepted.map((d) => d.webhookId));
      if (ids.size > 1) {
        verdict.duplicated += ids.size - 1;
        verdict.failures.push(`${label}: delivered under ${ids.size} webhook-ids (${raw.length} POSTs at the receiver)`);
      }
      const heraldPublished = r.segments.filter((s) => s.status === "published" && s.external_id);
      if (heraldPublished.length > 0 && ids.size === 0) {
        verdict.lost++;
        verdict.failures.push(`${label}: Herald says published, the receiver never accepted it`);
      }
      if (ids.size > 0 && heraldPublished.length === 0 && !unknownOk) {
        verdict.lost++;
        verdict.failures.push(`${label}: at the receiver, but Herald says ${r.status} (${r.error_code ?? "no error code"})`);
      }
    } else if (meta?.platform === "bluesky" && meta.did) {
      const records = await pds.listPosts(meta.did);
      const byUri = new Map(records.map((p) => [p.uri, p]));
      const positionOf = (uri: string, depth = 0): number => {
        const rec = byUri.get(uri);
        if (!rec || depth > 20) return -1;
        const parent = rec.value?.reply?.parent?.uri;
        if (!parent) return 0;
        const p = positionOf(parent, depth + 1);
        return p < 0 ? -1 : p + 1;
      };
      const atPosition = new Map<number, string[]>();
      for (const rec of records) {
        const p = positionOf(rec.uri);
        atPosition.set(p, [...(atPosition.get(p) ?? []), rec.uri]);
      }
      for (const [p, uris] of atPosition) {
        if (p < 0) {
          verdict.lost += uris.length;
          verdict.failures.push(`${label}: ${uris.length} record(s) at the PDS whose thread is broken (parent missing)`);
        } else if (uris.length > 1) {
          verdict.duplicated += uris.length - 1;
          verdict.failures.push(`${label}: ${uris.length} records at thread position ${p}`);
        }
      }
      const positions = new Set([...r.segments.map((s) => s.position), ...[...atPosition.keys()].filter((p) => p >= 0)]);
      for (const p of positions) {
        const seg = r.segments.find((s) => s.position === p);
        const there = atPosition.get(p) ?? [];
        const heraldPosted = seg?.status === "published" && seg.external_id;
        if (heraldPosted && !byUri.has(seg.external_id!)) {
          verdict.lost++;
          verdict.failures.push(`${label}: segment ${p} is published in Herald (${seg.external_id}) but not at the PDS`);
        } else if (!heraldPosted && there.length > 0 && !unknownOk) {
          verdict.lost++;
          verdict.failures.push(
            `${label}: segment ${p} is at the PDS but Herald says ${seg?.status ?? "nothing"} (rendition ${r.status}, ${r.error_code ?? "no error code"})`,
          );
        }
      }
    }
    if (r.status === "published" && r.segments.some((s) => s.status !== "published"))
      verdict.failures.push(`${label}: published with segments ${r.segments.map((s) => s.status).join(",")}`);
  }
  if (state.renditions.every((r) => TERMINAL.has(r.status)) && state.publication === "publishing")
    verdict.failures.push(`publication still publishing though every rendition is terminal`);
  return verdict;
}

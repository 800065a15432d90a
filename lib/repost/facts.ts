import { sql } from "drizzle-orm";
import { analyticsContentItems, analyticsMeasurements, renditions } from "../../db/schema";
import type { Queryable } from "../db/client";
import type { PostFacts, RuleMetric } from "./evaluate";

/** One rendition as a rule looks at it: measurements up to `windowSeconds` after publication, and how many collections a plateau needs. */
export interface FactsRequest {
  renditionId: string;
  publishedAtMs: number;
  windowSeconds: number;
  /** 0: no plateau asked. */
  plateauChecks: number;
}

export const factsKey = (r: Pick<FactsRequest, "renditionId" | "windowSeconds" | "plateauChecks">) => `${r.renditionId}|${r.windowSeconds}|${r.plateauChecks}`;

const list = (values: (string | number)[]) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

/**
 * Only measurements Herald collected from the platform count: the post's content item is `native` and the
 * measurement's source is not `import`. An import naming a native post's id lands on the same item, so the
 * item's roll-up (`latest_metrics`) may hold imported numbers and is not read here.
 */
const NATIVE = sql`m.availability = 'available' and m.source <> 'import' and m.metric in ('likes', 'reposts', 'replies', 'views')`;

/** The facts each request needs, keyed by `factsKey`; a rendition with no native measurement gets empty facts. */
export async function nativeFacts(q: Queryable, requests: FactsRequest[]): Promise<Map<string, PostFacts>> {
  const unique = [...new Map(requests.map((r) => [factsKey(r), r])).values()];
  const out = new Map<string, PostFacts>(unique.map((r) => [factsKey(r), { publishedAtMs: r.publishedAtMs, latest: {}, history: [] }]));
  if (unique.length === 0) return out;
  const pairs = sql`unnest(array[${list(unique.map((r) => r.renditionId))}]::text[], array[${list(unique.map((r) => r.windowSeconds))}]::int[], array[${list(
    unique.map((r) => r.plateauChecks),
  )}]::int[]) as x(rid, win, checks)
    join ${renditions} r on r.id = x.rid
    join ${analyticsContentItems} i on i.rendition_id = x.rid and i.source = 'native'`;
  const bound = sql`r.published_at + make_interval(secs => x.win)`;
  const latest = await q.execute<{ rid: string; win: number; checks: number; metric: RuleMetric; value: string | number }>(sql`
    select x.rid, x.win, x.checks, k.metric, v.value
    from ${pairs}
    cross join unnest(array['likes', 'reposts', 'replies', 'views']) as k(metric)
    cross join lateral (
      select m.value from ${analyticsMeasurements} m
      where m.content_item_id = i.id and m.metric = k.metric and ${NATIVE} and m.collected_at <= ${bound}
      order by m.collected_at desc limit 1
    ) v`);
  for (const row of latest.rows) {
    const facts = out.get(factsKey({ renditionId: row.rid, windowSeconds: Number(row.win), plateauChecks: Number(row.checks) }));
    if (facts) facts.latest[row.metric] = Math.max(facts.latest[row.metric] ?? 0, Number(row.value));
  }
  if (unique.some((r) => r.plateauChecks > 0)) {
    const history = await q.execute<{ rid: string; win: number; checks: number; total: number }>(sql`
      select x.rid, x.win, x.checks, h.total
      from ${pairs}
      cross join lateral (
        select m.collected_at, sum(m.value)::float8 as total from ${analyticsMeasurements} m
        where m.content_item_id = i.id and ${NATIVE} and m.collected_at <= ${bound}
        group by m.collected_at order by m.collected_at desc limit x.checks
      ) h
      where x.checks > 0
      order by x.rid, x.win, x.checks, h.collected_at asc`);
    for (const row of history.rows)
      out.get(factsKey({ renditionId: row.rid, windowSeconds: Number(row.win), plateauChecks: Number(row.checks) }))?.history.push(Number(row.total));
  }
  return out;
}

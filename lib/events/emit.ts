import { is, SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { outboundEvents, outboxJobs, webhookDeliveries, webhookEndpoints } from "../../db/schema";
import type { Queryable } from "../db/client";
import { insertWhere } from "../db/insert-where";
import { newId } from "../ids";
import { outboxRow } from "../jobs/outbox";
import type { EventType } from "./types";

/**
 * Writing an outbound event (CONTRACT §9 Integrations) in the transaction of the change that causes it: the
 * event, one delivery per enabled endpoint of the workspace subscribed to its type, and one `event.deliver` job
 * for them. So an event is never lost (it commits with the change) and never sent for a change that rolled back.
 * Nothing is written when no endpoint subscribes.
 *
 * These are statements that read nothing first, so a caller that writes its change in one batch
 * (lib/db/batch.ts) sends them in the same batch, and `when` makes them conditional on its change having
 * applied (see `changedNow`).
 */
export interface EventInput {
  /** The workspace, or an SQL expression reading it (a caller that knows only a row's id). */
  workspaceId: string | SQL;
  type: EventType;
  /** Ids, statuses and titles only; an SQL expression (a jsonb built from the row as changed) is taken as written. */
  data: Record<string, unknown> | SQL;
  /** Written only if this holds after the caller's earlier statements (its change applied). */
  when?: SQL;
}

export function eventStatements(input: EventInput): { eventId: string; statements: SQL[] } {
  const eventId = newId("evt");
  const workspace = typeof input.workspaceId === "string" ? sql`${input.workspaceId}` : sql`(${input.workspaceId})`;
  const subscribed = sql`${webhookEndpoints.workspaceId} = ${workspace} and ${webhookEndpoints.disabledAt} is null and ${input.type} = any(${webhookEndpoints.events})`;
  const anySubscribed = sql`exists (select 1 from ${webhookEndpoints} where ${subscribed})`;
  const written = sql`exists (select 1 from ${outboundEvents} where ${outboundEvents.id} = ${eventId})`;
  const data = is(input.data, SQL) ? sql`(${input.data})::jsonb` : sql`${JSON.stringify(input.data)}::jsonb`;
  const job = outboxRow("event.deliver", null, { event_id: eventId });
  return {
    eventId,
    statements: [
      insertWhere(
        outboundEvents,
        { id: eventId, workspaceId: workspace, type: input.type, data },
        input.when ? sql`(${input.when}) and ${anySubscribed}` : anySubscribed,
      ),
      // Delivery ids are made by the database, one per endpoint found (gen_random_uuid: random, like newId's).
      sql`insert into ${webhookDeliveries} (id, workspace_id, endpoint_id, event_id)
        select 'whd_' || replace(gen_random_uuid()::text, '-', ''), ${webhookEndpoints.workspaceId}, ${webhookEndpoints.id}, ${eventId}
        from ${webhookEndpoints} where ${subscribed} and ${written}`,
      insertWhere(outboxJobs, { ...job, workspaceId: workspace }, written),
    ],
  };
}

/** Write an event in the caller's transaction (see eventStatements); its id when written. */
export async function emitEvent(
  tx: Queryable,
  workspaceId: string | SQL,
  type: EventType,
  data: Record<string, unknown> | SQL,
  opts: { when?: SQL } = {},
): Promise<string> {
  const { eventId, statements } = eventStatements({ workspaceId, type, data, when: opts.when });
  await runInOrder(tx, statements);
  return eventId;
}

/** Statements of an event (eventStatements, lib/events/subjects.ts) in the caller's interactive transaction. */
export async function runInOrder(tx: Queryable, statements: SQL[]): Promise<void> {
  for (const statement of statements) await tx.execute(statement);
}

/**
 * True after a statement of this transaction moved the row to `status`: such writes set `updated_at = now()`, the
 * transaction's start (stored to the millisecond). For a conditional write whose caller cannot see whether it
 * applied (a batch); two transactions would have to start within the same millisecond to both see it.
 */
export function changedNow(row: { id: AnyPgColumn; status: AnyPgColumn; updatedAt: AnyPgColumn }, id: string, status: string): SQL {
  return sql`exists (select 1 from ${row.id.table} where ${row.id} = ${id} and ${row.status} = ${status} and ${row.updatedAt} = now()::timestamptz(3))`;
}

/** Statements under names (`<prefix>_0`, …), for a group of lib/db/batch.ts's inOneTransactionNamed. */
export const byName = (prefix: string, statements: SQL[]): Record<string, SQL> => Object.fromEntries(statements.map((s, i) => [`${prefix}_${i}`, s]));

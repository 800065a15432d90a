import { and, desc, sql } from "drizzle-orm";
import { publications, socialAccounts, workspaceMembers, workspaces } from "../db/schema";
import { personalOrganizationId } from "../lib/billing/organizations";
import { issueToken } from "../lib/auth/tokens";
import { createUser } from "../lib/auth/users";
import { openDb, type Database } from "../lib/db/client";
import type { Env } from "../lib/env";
import { newId } from "../lib/ids";
import { listConditions, type ListFilters } from "../lib/publishing/list-filters";
import { publicationPage } from "../lib/publishing/page";

const CHUNK = 10_000;

/**
 * A workspace with `count` publications, each with one source segment and one rendition of one
 * segment, spread over the last 30 days and the next 30; about 1 % mention "launch", a third are
 * scheduled, half go to Bluesky. Bulk SQL (generate_series) so seeding takes seconds.
 */
export async function seedPublications(env: Env, count: number, onProgress: (done: number) => void) {
  const { db, close } = openDb(env);
  try {
    const user = await createUser(db, { email: `bench-${Date.now()}@example.test`, displayName: "Bench", isAdmin: false });
    const { token } = await issueToken(db, user.id, "bench");
    const workspaceId = newId("wsp");
    await db.insert(workspaces).values({ id: workspaceId, name: "Bench", organizationId: await personalOrganizationId(db, user.id), createdBy: user.id });
    await db.insert(workspaceMembers).values({ workspaceId, userId: user.id, role: "owner" });
    const accounts = { bluesky: newId("acc"), webhook: newId("acc") };
    await db.insert(socialAccounts).values([
      { id: accounts.bluesky, workspaceId, platform: "bluesky", username: "bench.test", createdBy: user.id },
      { id: accounts.webhook, workspaceId, platform: "webhook", url: "http://127.0.0.1:9/hook", createdBy: user.id },
    ]);
    for (let start = 0; start < count; start += CHUNK) {
      const end = Math.min(count, start + CHUNK) - 1;
      await db.execute(sql`
        with src as (
          select i,
                 'pub_bench_' || i as id,
                 now() - (random() * interval '30 days') as created,
                 case when i % 100 = 0 then 'Launch ' else '' end || 'Post ' || i || ' ' || md5(i::text) as title,
                 case when i % 3 = 0 then 'scheduled' when i % 3 = 1 then 'draft' else 'published' end as status,
                 case when i % 2 = 0 then 'bluesky' else 'webhook' end as platform
          from generate_series(${start}::int, ${end}::int) as i
        ), pubs as (
          insert into publications (id, workspace_id, status, title, source_text, platforms, scheduled_at, run_at, calendar_at, created_by, created_at, updated_at)
          select id, ${workspaceId}, status, title,
                 'Body of ' || title || '. ' || repeat(md5((i * 7)::text) || ' ', 4),
                 array[platform],
                 case when status = 'scheduled' then now() + (random() * interval '30 days') end,
                 case when status = 'scheduled' then now() + (random() * interval '30 days') end,
                 case when status = 'published' then created + interval '1 hour' when status = 'scheduled' then now() + (random() * interval '30 days') end,
                 ${user.id}, created, created
          from src returning id
        ), segs as (
          insert into publication_segments (id, publication_id, position, title, body)
          select 'pseg_' || src.id, src.id, 0, src.title, 'Body of ' || src.title from src returning 1
        ), rends as (
          insert into renditions (id, publication_id, workspace_id, social_account_id, platform, position, title, body, status, delivery_key)
          select 'ren_' || src.id, src.id, ${workspaceId},
                 case when src.platform = 'bluesky' then ${accounts.bluesky} else ${accounts.webhook} end,
                 src.platform, 0, src.title, 'Body of ' || src.title,
                 case when src.status = 'published' then 'published' else 'pending' end,
                 'dlv_' || src.id
          from src returning id
        )
        insert into rendition_segments (id, rendition_id, position, body)
        select 'rseg_' || rends.id, rends.id, 0, 'Segment body' from rends`);
      onProgress(end + 1);
    }
    await db.execute(sql`analyze`);
    return { token, workspaceId, userId: user.id };
  } finally {
    await close();
  }
}

/** The list filters the benchmarks measure (bench/publications-list.ts, bench/edge-speed.ts). */
export const PUBLICATION_CASES: { name: string; query: Omit<ListFilters, "workspace_id"> & { limit?: number } }[] = [
  { name: "newest 50", query: {} },
  { name: "search 'launch'", query: { search: "launch" } },
  { name: "bucket scheduled", query: { activity_bucket: "scheduled" } },
  { name: "platform bluesky + created range", query: { platform: "bluesky", created_from: new Date(Date.now() - 3 * 86_400_000).toISOString() } },
  { name: "calendar next 7 days", query: { calendar_from: new Date().toISOString(), calendar_before: new Date(Date.now() + 7 * 86_400_000).toISOString() } },
];

/** The statement GET /publications runs for a page (lib/publishing/page.ts), without the authentication guard. */
export async function publicationsPage(db: Database, workspaceId: string, query: Omit<ListFilters, "workspace_id">) {
  const page = db
    .select()
    .from(publications)
    .where(and(...listConditions({ workspace_id: workspaceId, ...query })))
    .orderBy(desc(publications.createdAt), desc(publications.id))
    .limit(51);
  return (await publicationPage(db, "http://localhost:8787", page)).slice(0, 50);
}

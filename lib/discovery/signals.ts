import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { analyticsContentItems, media, publicationBuilds, publications, voiceProfiles } from "../../db/schema";
import type { Queryable } from "../db/client";
import type { Signal } from "./types";

/** Signals read per kind: discovery's cost stays bounded whatever the workspace holds. */
const PER_KIND = 50;
const TEXT_MAX = 2_000;
const clip = (t: string | null | undefined) => (t ?? "").slice(0, TEXT_MAX);

/**
 * The workspace's own signals, newest first per kind, in a stable order (ties broken by id): its
 * recent publications with how they did where measured, imported or collected content, media, build
 * ideas and sources, and the default voice's expertise and opinions. Reads only; never writes.
 */
export async function loadSignals(q: Queryable, workspaceId: string): Promise<Signal[]> {
  const [pubs, items, library, builds, [voice]] = await Promise.all([
    q
      .select({ id: publications.id, title: publications.title, text: publications.sourceText, at: publications.createdAt })
      .from(publications)
      .where(eq(publications.workspaceId, workspaceId))
      .orderBy(desc(publications.createdAt), desc(publications.id))
      .limit(PER_KIND),
    q
      .select({
        id: analyticsContentItems.id,
        title: analyticsContentItems.title,
        excerpt: analyticsContentItems.excerpt,
        at: analyticsContentItems.publishedAt,
        engagement: analyticsContentItems.engagement,
        publicationId: analyticsContentItems.publicationId,
      })
      .from(analyticsContentItems)
      .where(eq(analyticsContentItems.workspaceId, workspaceId))
      .orderBy(desc(analyticsContentItems.publishedAt), desc(analyticsContentItems.id))
      .limit(PER_KIND),
    q
      .select({ id: media.id, name: media.originalFilename, alt: media.altText, tags: media.tags, type: media.mediaType, at: media.createdAt })
      .from(media)
      .where(and(eq(media.workspaceId, workspaceId), isNull(media.trashedAt)))
      .orderBy(desc(media.createdAt), desc(media.id))
      .limit(PER_KIND),
    q
      .select({ id: publicationBuilds.id, input: publicationBuilds.input, at: publicationBuilds.createdAt })
      .from(publicationBuilds)
      .where(eq(publicationBuilds.workspaceId, workspaceId))
      .orderBy(desc(publicationBuilds.createdAt), desc(publicationBuilds.id))
      .limit(PER_KIND),
    q
      .select()
      .from(voiceProfiles)
      .where(and(eq(voiceProfiles.workspaceId, workspaceId), eq(voiceProfiles.isDefault, true)))
      .limit(1),
  ]);
  // How a publication did: the engagement of the content items it became.
  const byPublication = new Map<string, number>();
  if (pubs.length) {
    const rows = await q
      .select({ id: analyticsContentItems.publicationId, engagement: sql<number>`sum(${analyticsContentItems.engagement})::bigint` })
      .from(analyticsContentItems)
      .where(
        inArray(
          analyticsContentItems.publicationId,
          pubs.map((p) => p.id),
        ),
      )
      .groupBy(analyticsContentItems.publicationId);
    for (const r of rows) if (r.id) byPublication.set(r.id, Number(r.engagement));
  }
  const signals: Signal[] = [];
  for (const p of pubs)
    signals.push({
      kind: "publication",
      id: p.id,
      date: p.at.toISOString(),
      title: clip(p.title ?? p.text.slice(0, 80)),
      text: clip(p.text),
      engagement: byPublication.get(p.id) ?? null,
    });
  // Content items of our own publications are already counted through them.
  for (const c of items)
    if (!c.publicationId)
      signals.push({
        kind: "content",
        id: c.id,
        date: c.at.toISOString(),
        title: clip(c.title ?? c.excerpt?.slice(0, 80)),
        text: clip(c.excerpt ?? c.title),
        engagement: c.engagement,
      });
  for (const m of library) {
    signals.push({
      kind: "media",
      id: m.id,
      date: m.at.toISOString(),
      title: clip(m.name ?? m.id),
      text: clip([m.alt, ...m.tags].filter(Boolean).join(". ")),
      engagement: null,
      media_type: m.type,
    });
  }
  for (const b of builds) {
    const input = b.input as { idea?: string | null; sources?: { label?: string; text?: string | null; publishable?: boolean }[] };
    const sources = (input.sources ?? []).filter((s) => s.publishable !== false);
    signals.push({
      kind: "build",
      id: b.id,
      date: b.at.toISOString(),
      title: clip(input.idea ?? sources[0]?.label ?? ""),
      text: clip([input.idea, ...sources.map((s) => s.text)].filter(Boolean).join("\n")),
      engagement: null,
    });
  }
  if (voice) {
    voice.definition.expertise
      .slice(0, PER_KIND)
      .forEach((e, i) => signals.push({ kind: "expertise", id: `${voice.id}:expertise:${i}`, date: null, title: clip(e), text: clip(e), engagement: null }));
    voice.definition.opinions
      .slice(0, PER_KIND)
      .forEach((o, i) => signals.push({ kind: "opinion", id: `${voice.id}:opinion:${i}`, date: null, title: clip(o), text: clip(o), engagement: null }));
  }
  return signals;
}

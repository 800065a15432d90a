/**
 * Rules of an image document that span several fields, so a per-field schema cannot state them.
 * Pure: the route's schema calls it and reports each finding as a 422 naming the field.
 */

export interface RuleLayer {
  id: string;
  type: string;
  parent_id?: string | null;
}

export interface RuleDocument {
  pages: { id: string; layers: RuleLayer[] }[];
}

export interface RuleIssue {
  /** Path inside the document, e.g. ["pages", 0, "layers", 3, "id"]. */
  path: (string | number)[];
  message: string;
}

/**
 * Page ids are unique in the document, layer ids unique on their page, and a layer's `parent_id` names a
 * group layer on the same page without forming a cycle.
 */
export function documentIssues(doc: RuleDocument): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const pageIds = new Set<string>();
  doc.pages.forEach((page, p) => {
    if (pageIds.has(page.id)) issues.push({ path: ["pages", p, "id"], message: `Page id ${page.id} is used by an earlier page` });
    pageIds.add(page.id);

    const byId = new Map<string, RuleLayer>();
    page.layers.forEach((layer, l) => {
      if (byId.has(layer.id)) issues.push({ path: ["pages", p, "layers", l, "id"], message: `Layer id ${layer.id} is used by an earlier layer on this page` });
      else byId.set(layer.id, layer);
    });

    page.layers.forEach((layer, l) => {
      const parentId = layer.parent_id;
      if (parentId == null) return;
      const at = ["pages", p, "layers", l, "parent_id"];
      const parent = byId.get(parentId);
      if (parentId === layer.id) issues.push({ path: at, message: "A layer cannot be its own parent" });
      else if (!parent) issues.push({ path: at, message: `No layer ${parentId} on this page` });
      else if (parent.type !== "group") issues.push({ path: at, message: `Layer ${parentId} is a ${parent.type} layer, not a group` });
      else if (inCycle(layer, byId)) issues.push({ path: at, message: "Parent links form a cycle" });
    });
  });
  return issues;
}

/** Whether following parent links from `start` comes back to it (bounded by the number of layers). */
function inCycle(start: RuleLayer, byId: Map<string, RuleLayer>): boolean {
  let current: RuleLayer | undefined = start;
  for (let steps = 0; steps <= byId.size; steps++) {
    const parentId: string | null | undefined = current?.parent_id;
    if (parentId == null) return false;
    if (parentId === start.id) return true;
    current = byId.get(parentId);
  }
  return true;
}

/** Media items a document points at without showing them: page previews and the latest exports. */
export function mentionedMediaIds(doc: { pages: { preview_media_id?: string | null; latest_export_media_id?: string | null }[] }): string[] {
  return [...new Set(doc.pages.flatMap((p) => [p.preview_media_id, p.latest_export_media_id].filter((id): id is string => Boolean(id))))];
}

/**
 * Media library items a document uses: image layers and page background images. These are recorded as
 * media usages so the library can show `usage_count` and refuse to purge silently.
 */
export function referencedMediaIds(doc: {
  pages: { background?: { image?: { media_id?: string | null } }; layers: { image?: { media_id?: string | null } }[] }[];
}): string[] {
  const ids = new Set<string>();
  for (const page of doc.pages) {
    const background = page.background?.image?.media_id;
    if (background) ids.add(background);
    for (const layer of page.layers) {
      const media = layer.image?.media_id;
      if (media) ids.add(media);
    }
  }
  return [...ids];
}

/** What the API says of itself in its OpenAPI document: the Worker apps' options (functions/api-info.ts). */
export interface DocumentInfo {
  title: string;
  description?: string;
  /** SPDX: the licence the API's code and description are under. */
  license?: { name: string; identifier: string };
  /** Who answers for this instance; its URL is the instance's reference page. */
  contactName?: string;
  /** Declared tags; the document lists those its operations use. */
  tags?: readonly { name: string; description: string }[];
}

type Paths = Record<string, Record<string, unknown>> | undefined;

/** `info` of the document served at `baseUrl`. */
export function documentInfo(options: DocumentInfo, baseUrl: string, version: string): { title: string; version: string } & Record<string, unknown> {
  return {
    title: options.title,
    version,
    ...(options.description ? { description: options.description } : {}),
    ...(options.license ? { license: options.license } : {}),
    ...(options.contactName ? { contact: { name: options.contactName, url: `${baseUrl}/docs` } } : {}),
  };
}

/** The declared tags that the operations of `paths` carry, in the declared order. */
export function usedTags(options: DocumentInfo, paths: Paths): { name: string; description: string }[] {
  const used = new Set<string>();
  for (const item of Object.values(paths ?? {})) {
    for (const operation of Object.values(item)) {
      const tags = (operation as { tags?: unknown }).tags;
      if (Array.isArray(tags)) for (const tag of tags) if (typeof tag === "string") used.add(tag);
    }
  }
  return (options.tags ?? []).filter((tag) => used.has(tag.name));
}

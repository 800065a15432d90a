/** An OpenAPI 3.1 document as JSON: only the parts a merge touches are named. */
export interface OpenApiJson {
  openapi: string;
  info: Record<string, unknown>;
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

/**
 * One document from the documents of several operation groups, as if they had been one app: paths and
 * their operations side by side (two groups may share a path template, each with its own methods) and
 * the components of all, by name. Every group generates its shared components (Problem, the security
 * scheme, …) from the same code, so a name means the same schema wherever it appears.
 * Everything else (openapi, servers, security) is the first document's; `info` is the given one.
 */
export function mergeOpenApiDocuments(documents: OpenApiJson[], info: Record<string, unknown>): OpenApiJson {
  const [first] = documents;
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Record<string, Record<string, unknown>> = {};
  for (const document of documents) {
    for (const [path, item] of Object.entries(document.paths ?? {})) paths[path] = { ...paths[path], ...item };
    for (const [kind, entries] of Object.entries(document.components ?? {})) components[kind] = { ...components[kind], ...entries };
  }
  return { ...first, info, paths, components };
}

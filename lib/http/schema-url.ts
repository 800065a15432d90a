/**
 * Where the JSON Schema of a named response object is served (and what `$schema` names). A module of its own,
 * without zod, so that the gateway (lib/http/router.ts) answers problems and serves schemas without it.
 */
export function schemaUrl(baseUrl: string, name: string): string {
  return `${baseUrl}/api/v1/schemas/${name}.json`;
}

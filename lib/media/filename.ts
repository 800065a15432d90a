/**
 * The name an upload is listed under: the last path segment only (some browsers send `C:\fakepath\…`),
 * without control characters, at most 255 characters; null when nothing is left.
 */
export function cleanFilename(name: string | undefined | null): string | null {
  if (!name) return null;
  const base = name.split(/[/\\]/).pop() ?? "";
  const clean = base
    .replace(/\p{Cc}/gu, "")
    .trim()
    .slice(0, 255);
  return clean || null;
}

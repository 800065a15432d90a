/**
 * A response body read up to `maxBytes` and no further: a hostile or broken server cannot make us buffer
 * more than that (a declared Content-Length above the cap is refused before reading). Returns null when
 * the body is larger, after cancelling the rest of the stream.
 */
export async function readCapped(res: Response, maxBytes: number): Promise<Uint8Array | null> {
  if (Number(res.headers.get("content-length") ?? 0) > maxBytes) {
    await res.body?.cancel().catch(() => {});
    return null;
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** The body as text, at most `maxBytes` of it; null when larger or unreadable. */
export async function readTextCapped(res: Response, maxBytes: number): Promise<string | null> {
  try {
    const bytes = await readCapped(res, maxBytes);
    return bytes === null ? null : new TextDecoder().decode(bytes);
  } catch {
    return null;
  }
}

/**
 * A body read whole when it is at most `maxBytes`, or null as soon as it is longer; either way the reader is released,
 * so that what is left can still be dropped before the answer (lib/http/body-gate.ts drainUnreadBody). For bodies of
 * unknown length (chunked) that are parsed whole anyway (JSON); hono's bodyLimit keeps the stream locked instead.
 */
export async function readBodyCapped(source: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const reader = source.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) return null;
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}

/**
 * Reading and dropping the rest of a body costs time, not memory; past this much it is cancelled instead (the
 * connection then closes, which is what a client sending that much without waiting for the answer gets).
 */
export const DISCARD_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Reads what is left of a body and drops it, chunk by chunk, at most `bound` bytes; then cancels what remains.
 * Why at all: workerd lets nothing read a request's body once its answer is sent, and wrangler dev's proxy (and
 * the relay of `npm start`) then fail the connection instead of delivering the answer. Returns the bytes dropped.
 */
export async function discardBody(reader: ReadableStreamDefaultReader<Uint8Array>, bound = DISCARD_MAX_BYTES): Promise<number> {
  let dropped = 0;
  try {
    for (;;) {
      if (dropped > bound) {
        await reader.cancel();
        return dropped;
      }
      const { done, value } = await reader.read();
      if (done) return dropped;
      dropped += value.byteLength;
    }
  } catch {
    // The client went away: nothing left to drop.
    return dropped;
  }
}

/** A request's declared Content-Length, or undefined when it has none (chunked) or a malformed one. */
export function declaredLength(headers: Headers): number | undefined {
  const value = headers.get("content-length");
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

export interface MeteredBody {
  /** The body as passed on: it ends in an error instead of delivering the chunk that passes the limit. */
  readonly stream: ReadableStream<Uint8Array>;
  /** Whether the body, counting what `discardRest` dropped, was longer than the limit. */
  exceeded(): boolean;
  /** Drops what the reader of `stream` left unread (bounded, see discardBody). */
  discardRest(): Promise<void>;
}

/**
 * Counts a body of unknown length (chunked) as it is read, never holding more than the chunk in hand: once the count
 * passes `maxBytes` the passed-on stream errors, so its reader stops, and the source is left for `discardRest`.
 */
export function meterBody(source: ReadableStream<Uint8Array>, maxBytes: number): MeteredBody {
  const reader = source.getReader();
  let seen = 0;
  let ended = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        controller.close();
        return;
      }
      seen += value.byteLength;
      if (seen > maxBytes) controller.error(new RangeError(`request body over ${maxBytes} bytes`));
      else controller.enqueue(value);
    },
    // The reader gave up early (an answer that needs no body): the source stays ours to drop before answering.
    cancel() {},
  });
  return {
    stream,
    exceeded: () => seen > maxBytes,
    async discardRest() {
      if (ended) return;
      seen += await discardBody(reader);
    },
  };
}

import { ProviderError, type UploadCheckpoint, type UploadCheckpoints } from "./types";

/**
 * Chunked, resumable uploads of one media file (YouTube, TikTok). The file is never held whole: each chunk is
 * read as a byte range from Herald's media URL (lib/providers/media-range.ts), sent, and the offset the platform
 * confirmed is saved (UploadCheckpoints: durable, and saving renews the delivery's lease) before the next chunk
 * is read. An attempt after a crash starts at the saved offset, or at the one the platform reports where its
 * protocol can say (YouTube), so a confirmed chunk is never sent again.
 */

export interface Chunk {
  start: number;
  /** Exclusive. */
  end: number;
}

/**
 * The chunks of a file of `total` bytes, `chunkSize` each; with `lastAbsorbs` the remainder joins the last full
 * chunk instead of forming a short one (TikTok: total_chunk_count = floor(size / chunk_size)). Pure.
 */
export function planChunks(total: number, chunkSize: number, lastAbsorbs = false): Chunk[] {
  if (!Number.isSafeInteger(total) || total <= 0 || !Number.isSafeInteger(chunkSize) || chunkSize <= 0) return [];
  const count = lastAbsorbs ? Math.max(1, Math.floor(total / chunkSize)) : Math.ceil(total / chunkSize);
  const chunks: Chunk[] = [];
  for (let i = 0; i < count; i++) chunks.push({ start: i * chunkSize, end: i === count - 1 ? total : (i + 1) * chunkSize });
  return chunks;
}

/** The chunks still to send once the platform holds the first `offset` bytes (an offset inside a chunk starts there). */
export function remainingChunks(chunks: Chunk[], offset: number): Chunk[] {
  return chunks.filter((c) => c.end > offset).map((c) => ({ start: Math.max(c.start, offset), end: c.end }));
}

export interface ChunkedUploadSteps {
  key: string;
  checkpoint: UploadCheckpoint;
  chunks: Chunk[];
  /** Reads the bytes [start, end) of the file. */
  read(chunk: Chunk): Promise<Uint8Array<ArrayBuffer>>;
  /** Sends one chunk; answers the offset the platform now holds and, after the last chunk, the platform's id. */
  send(chunk: Chunk, bytes: Uint8Array<ArrayBuffer>): Promise<{ offset: number; platformId?: string | null }>;
  uploads?: UploadCheckpoints;
}

/** Sends every chunk after the checkpoint's offset, saving the confirmed offset after each; answers the final checkpoint. */
export async function sendChunks(steps: ChunkedUploadSteps): Promise<UploadCheckpoint> {
  let checkpoint = steps.checkpoint;
  for (const chunk of remainingChunks(steps.chunks, checkpoint.offset)) {
    const bytes = await steps.read(chunk);
    const answer = await steps.send(chunk, bytes);
    if (answer.offset < chunk.end)
      // The platform kept less than was sent: resume from what it holds, on the next attempt (never guess).
      throw new ProviderError(`The platform confirmed ${answer.offset} of ${chunk.end} bytes.`, {
        kind: "unavailable",
        code: "upload_incomplete",
        retryable: true,
      });
    checkpoint = { ...checkpoint, offset: answer.offset, platformId: answer.platformId ?? checkpoint.platformId };
    await steps.uploads?.save(steps.key, checkpoint);
  }
  return checkpoint;
}

import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import http from "node:http";
import { listenOnLoopback } from "./loopback";

/**
 * A media file served the way Herald's media file route serves it (functions/media/file.ts): `Range: bytes=a-b`
 * answered 206 with Content-Range, streamed from disk. With `writeBigMp4` a test makes a large, valid MP4 (a
 * real clip followed by one `free` box of padding) without ever holding it in memory.
 */

/** Writes `size` bytes: the clip, then a `free` box filling the rest with a cheap pattern; answers its SHA-256. */
export async function writeBigMp4(path: string, clipPath: string, size: number): Promise<string> {
  const clip = readFileSync(clipPath);
  const hash = createHash("sha256");
  const out = createWriteStream(path);
  const write = (b: Buffer) => {
    hash.update(b);
    return out.write(b) ? Promise.resolve() : new Promise<void>((r) => out.once("drain", () => r()));
  };
  await write(clip);
  const rest = size - clip.length;
  const header = Buffer.alloc(8);
  header.writeUInt32BE(rest, 0);
  header.write("free", 4, "ascii");
  await write(header);
  const block = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < block.length; i++) block[i] = (i * 31 + 7) & 0xff;
  let left = rest - 8;
  let n = 0;
  while (left > 0) {
    const part = block.subarray(0, Math.min(left, block.length));
    // Vary each block so a chunk sent at the wrong offset would change the hash.
    part[0] = n++ & 0xff;
    await write(Buffer.from(part));
    left -= part.length;
  }
  await new Promise<void>((r) => out.end(() => r()));
  return hash.digest("hex");
}

export async function serveRangeFile(path: string, mimeType = "video/mp4") {
  const size = (await stat(path)).size;
  let rangeReads = 0;
  const server = http.createServer((req, res) => {
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    if (!m) {
      res.writeHead(200, { "content-type": mimeType, "content-length": String(size), "accept-ranges": "bytes" });
      createReadStream(path).pipe(res);
      return;
    }
    const start = Number(m[1]);
    const end = Math.min(Number(m[2]), size - 1);
    rangeReads += 1;
    res.writeHead(206, { "content-type": mimeType, "content-length": String(end - start + 1), "content-range": `bytes ${start}-${end}/${size}` });
    createReadStream(path, { start, end }).pipe(res);
  });
  const listening = await listenOnLoopback(server);
  return { url: `${listening.url}/media/file`, size, rangeReads: () => rangeReads, stop: listening.stop };
}

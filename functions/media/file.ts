import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notFound } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";
import { parseRange } from "../../lib/media/range";
import { loadMediaFor, mediaBucket } from "./lookup";
import { MediaIdParams } from "./schemas";

const Bytes = z.string().openapi({ type: "string", format: "binary" });

export const route = createRoute({
  method: "get",
  path: "/media/{id}/file",
  tags: ["media"],
  summary: "Download a media item's bytes (viewer or above)",
  description: "Served with the detected Content-Type. A single `Range: bytes=…` is answered with 206 so players can seek.",
  request: { params: MediaIdParams, headers: z.object({ range: z.string().max(200).optional() }) },
  responses: {
    200: { description: "The file", content: { "image/*": { schema: Bytes }, "video/*": { schema: Bytes }, "audio/*": { schema: Bytes } } },
    206: { description: "The requested byte range", content: { "video/*": { schema: Bytes }, "audio/*": { schema: Bytes } } },
    ...problems(401, 404, 422, 503),
  },
});

/** `filename*` (RFC 6266 / 8187) so any name survives the header; the plain one falls back to ASCII. */
function disposition(name: string | null): string {
  if (!name) return "inline";
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const row = await loadMediaFor(db(c), currentUser(c).id, c.req.valid("param").id, "viewer");
  const range = parseRange(c.req.valid("header").range, row.size);
  const object = await mediaBucket(c).get(row.objectKey, range ? { range } : undefined);
  if (!object) {
    console.error(JSON.stringify({ msg: "media bytes missing from storage", media_id: row.id, object_key: row.objectKey }));
    throw notFound("media file");
  }
  const headers = new Headers({
    "content-type": row.mimeType,
    "content-disposition": disposition(row.originalFilename),
    "accept-ranges": "bytes",
    // An item's bytes never change, but only members may read them.
    "cache-control": "private, max-age=31536000, immutable",
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox",
    etag: object.httpEtag,
  });
  if (range) {
    headers.set("content-range", `bytes ${range.offset}-${range.offset + range.length - 1}/${row.size}`);
    headers.set("content-length", String(range.length));
    return new Response(object.body, { status: 206, headers });
  }
  headers.set("content-length", String(row.size));
  return new Response(object.body, { status: 200, headers });
};

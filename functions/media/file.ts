import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { logEvent } from "../../lib/log";
import { media } from "../../db/schema";
import { db, type AppContext, type AppEnv } from "../../lib/http/context";
import { ApiError, notFound } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";
import type { MediaRow } from "../../lib/media/item";
import { parseRange } from "../../lib/media/range";
import { secondsLeft, verifyMediaSignature } from "../../lib/media/signed-url";
import { mediaBucket } from "./lookup";
import { MediaIdParams } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { scopedResource } from "../../lib/http/enforce-access";

const Bytes = z.string().openapi({ type: "string", format: "binary" });

export const route = createRoute({
  method: "get",
  path: "/media/{id}/file",
  operationId: "downloadMediaFile",
  tags: ["media"],
  summary: "Download a media item's bytes (viewer or above)",
  description:
    "Served with the detected Content-Type. A single `Range: bytes=…` is answered with 206 so players can seek. " +
    "Either with a bearer token (viewer or above), or without one through a signed URL (`expires` and `signature`, " +
    "as Herald hands to platforms and webhook receivers for a publication's media, valid for minutes, a day for webhook " +
    "receivers): an altered or expired signature answers 403 and says nothing of the item, an item in the trash 404.",
  // Bearer, or no token at all when the query carries a valid signature.
  security: [{ Bearer: [] }, {} as Record<string, string[]>],
  request: {
    params: MediaIdParams,
    query: z.object({
      expires: z.string().max(20).optional().openapi({ description: "Signed URLs: when the URL stops working (Unix seconds)" }),
      signature: z.string().max(200).optional().openapi({ description: "Signed URLs: the signature of the item id and `expires`" }),
    }),
    headers: z.object({ range: z.string().max(200).optional() }),
  },
  responses: {
    200: { description: "The file", content: { "image/*": { schema: Bytes }, "video/*": { schema: Bytes }, "audio/*": { schema: Bytes } } },
    206: { description: "The requested byte range", content: { "video/*": { schema: Bytes }, "audio/*": { schema: Bytes } } },
    ...problems(401, 403, 404, 422, 503),
  },
});

/** `filename*` (RFC 6266 / 8187) so any name survives the header; the plain one falls back to ASCII. */
function disposition(name: string | null): string {
  if (!name) return "inline";
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * The item a signed URL names. The signature is checked before the database is asked, so a guess learns
 * nothing (the same 403 whether the item exists or not); items in the trash (or purged) are gone for signed
 * access, whatever the signature says.
 */
async function loadSigned(c: AppContext, id: string, expires?: string, signature?: string): Promise<MediaRow> {
  if (!(await verifyMediaSignature(c.env, id, expires, signature))) {
    throw new ApiError("forbidden", { detail: "This media URL's signature is invalid or has expired; ask for a new URL or send a bearer token." });
  }
  const [row] = await db(c).select().from(media).where(eq(media.id, id));
  if (!row || row.trashedAt) throw notFound("media item");
  return row;
}

export const access = workspaceRole("viewer", resourceInPath("media"), { signedUrl: true });

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { expires, signature } = c.req.valid("query");
  // Authentication lets a request through without a token only when it carries `signature` (the access rule says so).
  const signed = signature !== undefined;
  const row = signed ? await loadSigned(c, id, expires, signature) : scopedResource(c, "media");
  const range = parseRange(c.req.valid("header").range, row.size);
  const object = await mediaBucket(c).get(row.objectKey, range ? { range } : undefined);
  if (!object) {
    logEvent("error", "media bytes missing from storage", { media_id: row.id, object_key: row.objectKey });
    throw notFound("media file");
  }
  const headers = new Headers({
    "content-type": row.mimeType,
    "content-disposition": disposition(row.originalFilename),
    "accept-ranges": "bytes",
    // An item's bytes never change, but only members may read them; a signed URL only until it expires.
    "cache-control": signed ? `private, max-age=${secondsLeft(expires!)}` : "private, max-age=31536000, immutable",
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

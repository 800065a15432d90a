import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Miniflare } from "miniflare";
import { media } from "../../db/schema";
import gateway from "../../functions/all-groups";
import type { Env } from "../../lib/env";
import { newId } from "../../lib/ids";
import { objectKey } from "../../lib/media/storage";
import { searchDocument } from "../../lib/media/tags";
import { env, withDb, type ApiResponse } from "./harness";

const FIXTURES = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../fixtures/media");

/** A fixture file's bytes (test/fixtures/media; how they were made is in the README there). */
export const fixture = (name: string): Uint8Array => new Uint8Array(fs.readFileSync(path.join(FIXTURES, name)));

export interface MediaStorage {
  bucket: R2Bucket;
  /** The test env with MEDIA_BUCKET bound: pass it to gateway.request. */
  env: Env;
  dispose(): Promise<void>;
}

/**
 * A real local R2 bucket (Miniflare's, the same implementation `wrangler dev` uses), persisted in a
 * temporary folder that dispose() removes.
 */
export async function startMediaStorage(extra: Partial<Env> = {}): Promise<MediaStorage> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "herald-r2-"));
  const mf = new Miniflare({ modules: true, script: "export default {}", r2Buckets: ["MEDIA_BUCKET"], r2Persist: dir });
  const bucket = (await mf.getR2Bucket("MEDIA_BUCKET")) as unknown as R2Bucket;
  return {
    bucket,
    env: { ...env, ...extra, MEDIA_BUCKET: bucket },
    async dispose() {
      await mf.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Call the gateway in-process with a given env (the harness's api() always uses the plain test env). */
export async function call<T = any>(
  withEnv: Env,
  method: string,
  urlPath: string,
  opts: { token?: string; json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T> & { bytes: Uint8Array }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers["content-type"] ??= "application/json";
  }
  const res = await gateway.request(urlPath, { method, headers, body }, withEnv);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed as T, text, bytes };
}

export interface UploadFields {
  workspaceId: string;
  bytes: Uint8Array;
  filename: string;
  /** The type the client claims; detection ignores it. */
  declaredType?: string;
  altText?: string;
  tags?: string;
  retentionClass?: string;
}

export function uploadForm(f: UploadFields): FormData {
  const form = new FormData();
  form.set("file", new File([f.bytes as Uint8Array<ArrayBuffer>], f.filename, { type: f.declaredType ?? "application/octet-stream" }));
  form.set("workspace_id", f.workspaceId);
  if (f.altText !== undefined) form.set("alt_text", f.altText);
  if (f.tags !== undefined) form.set("tags", f.tags);
  if (f.retentionClass !== undefined) form.set("retention_class", f.retentionClass);
  return form;
}

/** POST /media as multipart, the way a browser sends it. */
export const upload = (withEnv: Env, token: string, f: UploadFields) => call(withEnv, "POST", "/media", { token, body: uploadForm(f) });

type MediaInsert = typeof media.$inferInsert;

/**
 * Media rows written straight to the database (no bytes), for listing tests that need exact sizes,
 * dates and dimensions. Anything not given gets a plausible default.
 */
export async function insertMediaRows(workspaceId: string, rows: Partial<MediaInsert>[]): Promise<string[]> {
  const values = rows.map((r) => {
    const id = r.id ?? newId("med");
    const tags = r.tags ?? [];
    const originalFilename = r.originalFilename === undefined ? `${id}.png` : r.originalFilename;
    const altText = r.altText ?? null;
    return {
      mimeType: "image/png",
      mediaType: "image" as const,
      size: 1000,
      width: 100,
      height: 100,
      ...r,
      id,
      workspaceId,
      objectKey: r.objectKey ?? objectKey(workspaceId, id),
      tags,
      originalFilename,
      altText,
      searchText: searchDocument({ originalFilename, altText, tags }),
    };
  });
  await withDb((db) => db.insert(media).values(values));
  return values.map((v) => v.id);
}

import { Scalar } from "@scalar/hono-api-reference";
import type { Context } from "hono";

/**
 * Where the reference's browser script is served: a static asset of the gateway (wrangler.toml's `assets`, written by
 * local/docs-assets.ts from @scalar/api-reference's own bundle), so /docs needs no CDN and works offline. About 1 MiB
 * gzipped, it is no Worker's code: a Worker bundle stays within its 400 KiB.
 */
export const DOCS_SCRIPT_PATH = "/docs/scalar-api-reference.js";

/** Escape text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * A URL that cannot leave the JSON string it is written into inside the page's inline script: the URL parser
 * percent-encodes `<`, `>` and `"` in a path and query, so no `</script>` survives it.
 */
function safeUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return "/openapi.json";
  }
}

const sha256 = async (text: string) =>
  `'sha256-${btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))))}'`;

/** The inline `<script>` and `<style>` bodies of a page, as its policy must allow them (by hash). */
async function inlineHashes(html: string, tag: "script" | "style"): Promise<string[]> {
  const bodies = [...html.matchAll(new RegExp(`<${tag}\\b(?![^>]*\\ssrc=)[^>]*>([\\s\\S]*?)<\\/${tag}>`, "gi"))].map((m) => m[1]);
  return Promise.all(bodies.map(sha256));
}

/**
 * The interactive API reference at /docs, rendered by Scalar (@scalar/hono-api-reference) from the OpenAPI document.
 * Nothing but Herald itself is contacted: the script is Herald's own asset (DOCS_SCRIPT_PATH), default fonts and
 * telemetry are off, and a strict Content-Security-Policy allows only that script, the page's inline set-up script
 * and style (by hash), and requests to the API. Scalar adds its own styles at run time, so styles (never scripts)
 * may be inline.
 */
export async function docsResponse(c: Context, specUrl: string, title: string): Promise<Response> {
  const spec = safeUrl(specUrl);
  const page = await Scalar({
    url: spec,
    cdn: DOCS_SCRIPT_PATH,
    pageTitle: `${escapeHtml(title)} reference`,
    withDefaultFonts: false,
    telemetry: false,
    showDeveloperTools: "never",
    hideClientButton: true,
    // Scalar's "Ask AI" agent searches a public API registry through Scalar's proxy: not for an offline, private reference.
    agent: { disabled: true },
  })(c, async () => {});
  const html = await (page as Response).text();
  const specOrigin = new URL(spec, "http://invalid").origin;
  const connect = ["'self'", specOrigin !== "http://invalid" && specOrigin !== "null" ? specOrigin : ""].filter(Boolean).join(" ");
  const csp = [
    "default-src 'none'",
    `script-src 'self' ${(await inlineHashes(html, "script")).join(" ")}`,
    "style-src 'self' 'unsafe-inline'",
    `connect-src ${connect}`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  return c.html(html, 200, {
    "content-security-policy": csp,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-cache",
  });
}

import { createHash } from "node:crypto";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { DOCS_SCRIPT_PATH, docsResponse } from "../lib/http/docs-page";
import { api, env } from "./helpers/harness";

const scripts = (html: string) => [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
const hashOf = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
const directive = (csp: string, name: string) => csp.split(/;\s*/).find((d) => d.startsWith(`${name} `)) ?? "";

describe("/docs", () => {
  it("is Scalar's reference page, loading its script from Herald itself under a strict Content-Security-Policy", async () => {
    const res = await api("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = res.text;
    expect(html).toContain(`${env.PUBLIC_BASE_URL}/openapi.json`);

    // Nothing from another host: the one script with a source is Herald's own path; no stylesheet links, fonts or urls.
    const sources = [...html.matchAll(/<\w+\b[^>]*\s(?:src|href)\s*=\s*"([^"]*)"/gi)].map((m) => m[1]);
    expect(sources).toEqual([DOCS_SCRIPT_PATH]);
    expect(html).not.toMatch(/<link\b|@import|@font-face|url\(/i);
    const absolute = [...html.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0]);
    expect(absolute.filter((u) => !u.startsWith(env.PUBLIC_BASE_URL!))).toEqual([]);

    // Scripts: Herald's own file and inline ones allowed by hash; never 'unsafe-inline' or 'unsafe-eval'.
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(directive(csp, "default-src")).toBe("default-src 'none'");
    const scriptSrc = directive(csp, "script-src");
    expect(scriptSrc).not.toMatch(/unsafe|\*|https?:/);
    const inline = scripts(html).filter(([, attrs]) => !/\ssrc=/.test(attrs));
    expect(inline.length).toBeGreaterThan(0);
    for (const [, , body] of inline) expect(scriptSrc).toContain(hashOf(body));
    expect(scriptSrc.split(" ").filter((s) => s.startsWith("'sha256-"))).toHaveLength(inline.length);
    for (const name of ["connect-src", "img-src", "font-src", "style-src"])
      expect(directive(csp, name)).not.toMatch(/\*|https?:\/\/(?!127\.0\.0\.1|localhost)/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("escapes the title and keeps the spec URL from breaking out of its script element", async () => {
    const app = new Hono();
    app.get("/docs", (c) => docsResponse(c, "http://x.test/openapi.json?a=</script><script>alert(1)</script>", `<img src=x onerror="alert(1)">`));
    const html = await (await app.request("/docs")).text();
    expect(html).not.toContain("<img");
    expect(html).toContain("&#60;img src=x onerror=&#34;alert(1)&#34;&#62;");
    expect(scripts(html)).toHaveLength(2);
    expect(html).not.toContain("<script>alert(1)");
  });

  it("serves the OpenAPI document the page reads", async () => {
    const res = await api("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.1/);
    expect(Object.keys(res.body.paths).length).toBeGreaterThan(0);
  });
});

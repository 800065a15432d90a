import { describe, expect, it } from "vitest";
import { docsPage } from "../lib/http/docs-page";
import { api, env } from "./helpers/harness";

const scripts = (html: string) => [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];

describe("/docs", () => {
  it("is one self-contained HTML page that loads the OpenAPI document", async () => {
    const res = await api("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = res.text;
    expect(html).toContain(`${env.PUBLIC_BASE_URL}/openapi.json`);

    // Nothing from another host: no script/style/font/image/frame sources, no stylesheet links, no CSS imports or urls.
    expect(html).not.toMatch(/<(script|img|iframe|audio|video|source|embed|object)\b[^>]*\ssrc\s*=/i);
    expect(html).not.toMatch(/<link\b/i);
    const styles = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map((m) => m[1]).join("\n");
    expect(styles.length).toBeGreaterThan(0);
    expect(styles).not.toMatch(/@import|@font-face|url\(/i);
    // Any absolute URL is the API's own, or a placeholder on the reserved example.com (sample request bodies).
    const absolute = [...html.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0]);
    const external = absolute.filter((u) => !u.startsWith(env.PUBLIC_BASE_URL!) && u !== "https://example.com");
    expect(external).toEqual([]);

    // The inline script carries the CSP nonce and is valid JavaScript; the policy forbids anything else.
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
    const nonce = /script-src 'nonce-([0-9a-f]+)'/.exec(csp.replace(/&#39;/g, "'"))?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toMatch(/default-src &#39;none&#39;/);
    const code = scripts(html).filter(([, attrs]) => !/application\/json/.test(attrs));
    expect(code).toHaveLength(1);
    expect(code[0][1]).toContain(`nonce="${nonce}"`);
    expect(() => new Function(code[0][2])).not.toThrow();
  });

  it("escapes the title and keeps the spec URL from breaking out of its script element", () => {
    const html = docsPage("http://x.test/openapi.json?a=</script><script>alert(1)</script>", `<img src=x onerror="alert(1)">`);
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

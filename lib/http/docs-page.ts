import { DOCS_SCRIPT } from "./docs-page-script";

/** Escape text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** JSON that is safe inside a <script type="application/json"> element (no `</script>` break-out). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#5b6570;--line:#d8dee4;--panel:#f6f8fa;--accent:#0b5cad;--code:#eef1f4;
--get:#1a7f37;--post:#0b5cad;--put:#9a6700;--patch:#8250df;--delete:#cf222e;--other:#57606a}
@media (prefers-color-scheme:dark){:root{--bg:#0f1115;--fg:#e6e8eb;--muted:#9aa4ae;--line:#2c323a;--panel:#171a20;--accent:#6cb0ff;
--code:#222730;--get:#3fb950;--post:#58a6ff;--put:#d29922;--patch:#bc8cff;--delete:#ff7b72;--other:#8b949e}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Ubuntu,sans-serif}
code,pre,textarea,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:13px}
code{background:var(--code);padding:1px 4px;border-radius:4px}
a{color:var(--accent)}
.layout{display:grid;grid-template-columns:280px 1fr;min-height:100vh}
nav{border-right:1px solid var(--line);padding:16px;position:sticky;top:0;height:100vh;overflow:auto;background:var(--panel)}
nav h2{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:18px 0 6px}
nav a{display:flex;gap:6px;align-items:baseline;text-decoration:none;color:var(--fg);padding:2px 4px;border-radius:4px;font-size:13px}
nav a:hover{background:var(--code)}
nav a .mono{overflow-wrap:anywhere}
nav input{width:100%}
main{padding:24px 32px;max-width:1100px}
header h1{margin:0 0 4px}
.muted{color:var(--muted)}
.tag{margin-top:36px}
.tag>h2{border-bottom:1px solid var(--line);padding-bottom:4px;text-transform:capitalize}
details.op{border:1px solid var(--line);border-radius:8px;margin:10px 0;background:var(--bg)}
details.op>summary{cursor:pointer;padding:10px 12px;display:flex;gap:10px;align-items:baseline;flex-wrap:wrap;list-style:none}
details.op>summary::-webkit-details-marker{display:none}
details.op[open]>summary{border-bottom:1px solid var(--line)}
.body{padding:8px 16px 16px}
.method{display:inline-block;min-width:58px;text-align:center;font-weight:700;font-size:12px;color:#fff;border-radius:4px;padding:1px 6px;text-transform:uppercase}
.m-get{background:var(--get)}.m-post{background:var(--post)}.m-put{background:var(--put)}.m-patch{background:var(--patch)}
.m-delete{background:var(--delete)}.m-other{background:var(--other)}
nav .method{min-width:46px;font-size:10px}
.path{font-weight:600}
.lock{font-size:12px;color:var(--muted)}
h3{font-size:14px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin:18px 0 6px}
.prop{border-left:2px solid var(--line);padding:3px 0 3px 10px;margin:4px 0}
.pname{font-weight:600}
.req{color:var(--delete);font-size:12px;font-weight:600}
.type{color:var(--accent)}
.chip{display:inline-block;background:var(--code);border-radius:4px;padding:0 5px;margin:0 4px 2px 0;font-size:12px}
.desc p{margin:4px 0}
details.sub>summary{cursor:pointer;color:var(--muted);font-size:13px}
details.resp{border-top:1px solid var(--line);padding:4px 0}
details.resp>summary{cursor:pointer}
.status{font-weight:700}
.s2{color:var(--get)}.s3{color:var(--put)}.s4{color:var(--delete)}.s5{color:var(--delete)}
.try{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:12px;margin-top:16px}
.grid{display:grid;grid-template-columns:minmax(140px,220px) 1fr;gap:6px 12px;align-items:center}
input,select,textarea,button{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:5px 8px}
textarea{width:100%;min-height:140px;resize:vertical}
button{cursor:pointer;background:var(--accent);color:#fff;border:0;font-weight:600;padding:6px 16px;margin-top:10px}
button:disabled{opacity:.6;cursor:wait}
pre{background:var(--code);padding:8px;border-radius:6px;overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-word}
.error{color:var(--delete)}
.hidden{display:none}
@media (max-width:800px){.layout{grid-template-columns:1fr}nav{position:static;height:auto}}
`;

/**
 * The interactive API reference at /docs: one self-contained page (inline CSS and JS, no CDN, fonts or
 * other network resources besides the API itself) that loads the OpenAPI document and renders it.
 * A per-response nonce and a strict Content-Security-Policy keep anything else from running or loading.
 */
export function docsPage(specUrl: string, title: string): string {
  const nonce = crypto.randomUUID().replace(/-/g, "");
  const specOrigin = originOf(specUrl);
  const connect = ["'self'", specOrigin && specOrigin !== "null" ? specOrigin : ""].filter(Boolean).join(" ");
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    `connect-src ${connect}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const t = escapeHtml(title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="referrer" content="no-referrer">
<title>${t} reference</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<div class="layout">
<nav aria-label="Operations">
<strong>${t}</strong>
<p><input id="filter" type="search" placeholder="Filter operations" aria-label="Filter operations"></p>
<div id="nav"></div>
</nav>
<main>
<header>
<h1>${t}</h1>
<div id="info" class="desc"></div>
<p class="muted">OpenAPI document: <a id="spec-link" href="${escapeHtml(specUrl)}">${escapeHtml(specUrl)}</a></p>
</header>
<noscript><p>This reference needs JavaScript; the raw OpenAPI document is linked above.</p></noscript>
<div id="status" class="muted">Loading the OpenAPI document…</div>
<div id="ops"></div>
</main>
</div>
<script type="application/json" id="docs-config">${scriptJson({ specUrl })}</script>
<script nonce="${nonce}">${DOCS_SCRIPT}</script>
</body>
</html>`;
}

import type { GroupApp } from "../../lib/http/app";
import { SECURITY_PAGE_SCRIPT } from "./security-page-script";
import { declarePublic } from "../../lib/http/operation";

/** CONTRACT §8: the page at /account/security, plain HTML with one small script. No user data is rendered on the server. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Account security · Herald</title>
<link rel="stylesheet" href="/account/security.css">
<script src="/account/security.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header><p class="brand">Herald</p><h1>Account security</h1></header>
<main id="main">
  <p id="status" role="status" aria-live="polite"></p>

  <section id="signed-out" aria-labelledby="sign-in-title">
    <h2 id="sign-in-title">Sign in</h2>
    <p>Use a passkey saved on this device or a security key. No user name is needed.</p>
    <button id="sign-in" type="button" class="primary">Sign in with a passkey</button>
    <h2 id="token-title">No passkey yet?</h2>
    <form id="token-form" aria-labelledby="token-title">
      <p>Paste an API token to register your first passkey. It stays in this page's memory and is gone when you leave.</p>
      <label for="token">API token</label>
      <div class="row"><input id="token" type="password" autocomplete="off" spellcheck="false" required><button type="submit">Use token</button></div>
    </form>
  </section>

  <section id="signed-in" hidden aria-labelledby="account-title">
    <h2 id="account-title">Signed in</h2>
    <p><span id="who"></span>, <span id="how"></span>.</p>
    <div class="row">
      <button id="sign-out" type="button">Sign out</button>
      <button id="forget-token" type="button" hidden>Forget the token</button>
    </div>

    <h2 id="passkeys-title">Passkeys</h2>
    <ul id="passkeys" aria-labelledby="passkeys-title"></ul>
    <p id="no-passkeys" class="muted">You have no passkeys yet.</p>

    <form id="register-form" aria-labelledby="register-title">
      <h3 id="register-title">Register a passkey</h3>
      <label for="passkey-name">Name (optional), such as the device</label>
      <div class="row"><input id="passkey-name" maxlength="100" autocomplete="off"><button type="submit" class="primary">Register a passkey</button></div>
    </form>

    <h2 id="tokens-title">API tokens</h2>
    <p class="muted">Tokens you made for scripts and tools. A token is shown only when it is made; here you see when each was last used, and can revoke it.</p>
    <ul id="tokens" aria-labelledby="tokens-title"></ul>
    <p id="no-tokens" class="muted">You have no API tokens.</p>
  </section>
</main>
</body>
</html>
`;

const STYLE = `:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#5b6570;--line:#d8dee4;--panel:#f6f8fa;--accent:#0b5cad;--danger:#cf222e;--ok:#1a7f37}
@media (prefers-color-scheme:dark){:root{--bg:#0f1115;--fg:#e6e8eb;--muted:#9aa4ae;--line:#2c323a;--panel:#171a20;--accent:#6cb0ff;--danger:#ff7b72;--ok:#3fb950}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Ubuntu,sans-serif}
header,main{max-width:40rem;margin:0 auto;padding:0 1.25rem}
header{padding-top:2rem}
.brand{margin:0;color:var(--muted);font-weight:600;letter-spacing:.04em;text-transform:uppercase;font-size:.8rem}
h1{margin:.25rem 0 1rem;font-size:1.75rem}
h2{font-size:1.15rem;margin:1.75rem 0 .5rem}
h3{font-size:1rem;margin:1.5rem 0 .5rem}
.muted{color:var(--muted)}
label{display:block;font-weight:600;margin:.5rem 0 .25rem}
.row{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}
input{flex:1 1 14rem;min-width:0;padding:.5rem .65rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg);font:inherit}
button{padding:.5rem .9rem;border:1px solid var(--line);border-radius:6px;background:var(--panel);color:var(--fg);font:inherit;cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:#fff}
button.danger{color:var(--danger)}
button:hover{filter:brightness(.96)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
ul{list-style:none;padding:0;margin:0;border:1px solid var(--line);border-radius:8px}
ul:empty{display:none}
li{display:flex;justify-content:space-between;align-items:center;gap:1rem;padding:.75rem 1rem;border-top:1px solid var(--line)}
li:first-child{border-top:0}
li div{display:flex;flex-direction:column}
li span{font-size:.875rem}
#status{min-height:1.5rem;margin:0 0 .5rem;padding:.25rem 0}
#status[data-kind=error]{color:var(--danger)}
#status[data-kind=ok]{color:var(--ok)}
.skip{position:absolute;left:-999px}
.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.25rem .5rem}
`;

/** Nothing but our own script and style may load or run, and no other site may frame the page. */
const HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

export function mount(app: GroupApp): void {
  for (const path of ["/account/security", "/account/security.js", "/account/security.css"]) {
    declarePublic(app, "GET", path, "the page renders no user data; everything it shows it fetches with the caller's own credential");
  }
  app.get("/account/security", (c) => c.body(PAGE, 200, { ...HEADERS, "content-type": "text/html; charset=utf-8" }));
  app.get("/account/security.js", (c) => c.body(SECURITY_PAGE_SCRIPT, 200, { ...HEADERS, "content-type": "text/javascript; charset=utf-8" }));
  app.get("/account/security.css", (c) => c.body(STYLE, 200, { ...HEADERS, "content-type": "text/css; charset=utf-8" }));
}

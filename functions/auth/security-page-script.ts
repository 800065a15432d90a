/**
 * The script of /account/security, served as its own file so that the page's Content-Security-Policy
 * allows no inline script. Plain browser JavaScript: WebAuthn through navigator.credentials, the API
 * through fetch (the session cookie travels by itself; a pasted token only in this page's memory).
 */
export const SECURITY_PAGE_SCRIPT = String.raw`"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const state = { token: null, status: null, tokens: [] };

  const toBytes = (b64url) => {
    const b64 = b64url.replace(/-/g, "+").replace(/_/g, "/");
    const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
    return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  };
  const toB64url = (buffer) => {
    let bin = "";
    for (const b of new Uint8Array(buffer)) bin += String.fromCharCode(b);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };

  function say(text, kind) {
    const el = $("status");
    el.textContent = text;
    el.dataset.kind = kind || "info";
  }

  async function call(method, path, body) {
    const headers = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (state.token) headers.authorization = "Bearer " + state.token;
    const res = await fetch(path, { method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
    if (!res.ok) {
      const err = new Error((data && (data.detail || data.title)) || "The server answered " + res.status + ".");
      err.status = res.status;
      throw err;
    }
    return data;
  }

  function credentialJson(cred) {
    if (typeof cred.toJSON === "function") return cred.toJSON();
    const r = cred.response;
    const response = { clientDataJSON: toB64url(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = toB64url(r.attestationObject);
      if (r.getTransports) response.transports = r.getTransports();
    } else {
      response.authenticatorData = toB64url(r.authenticatorData);
      response.signature = toB64url(r.signature);
      if (r.userHandle) response.userHandle = toB64url(r.userHandle);
    }
    return { id: cred.id, rawId: toB64url(cred.rawId), type: cred.type, response, clientExtensionResults: cred.getClientExtensionResults() };
  }

  const when = (iso) => (iso ? new Date(iso).toLocaleString() : "never");

  function render() {
    const s = state.status;
    $("signed-out").hidden = !!s;
    $("signed-in").hidden = !s;
    $("sign-out").hidden = !(s && !state.token);
    $("forget-token").hidden = !(s && state.token);
    if (!s) return;
    $("who").textContent = s.user.display_name ? s.user.display_name + " (" + s.user.email + ")" : s.user.email;
    $("how").textContent = state.token ? "with an API token held by this page" : "with a passkey";
    const list = $("passkeys");
    list.replaceChildren();
    for (const key of s.passkeys) {
      const row = document.createElement("li");
      const text = document.createElement("div");
      const name = document.createElement("strong");
      name.textContent = key.name;
      const meta = document.createElement("span");
      meta.className = "muted";
      meta.textContent = "Added " + when(key.created_at) + " · last used " + when(key.last_used_at);
      text.append(name, meta);
      const del = document.createElement("button");
      del.type = "button";
      del.className = "danger";
      del.textContent = "Delete";
      del.setAttribute("aria-label", "Delete passkey " + key.name);
      del.addEventListener("click", () => removePasskey(key));
      row.append(text, del);
      list.append(row);
    }
    $("no-passkeys").hidden = s.passkeys.length > 0;
    renderTokens();
  }

  function renderTokens() {
    const list = $("tokens");
    list.replaceChildren();
    for (const token of state.tokens) {
      const row = document.createElement("li");
      const text = document.createElement("div");
      const name = document.createElement("strong");
      name.textContent = token.name;
      const meta = document.createElement("span");
      meta.className = "muted";
      meta.textContent = "Made " + when(token.created_at) + " · last used " + when(token.last_used_at) + " · " + (token.expires_at ? "expires " + when(token.expires_at) : "never expires");
      text.append(name, meta);
      const revoke = document.createElement("button");
      revoke.type = "button";
      revoke.className = "danger";
      revoke.textContent = "Revoke";
      revoke.setAttribute("aria-label", "Revoke token " + token.name);
      revoke.addEventListener("click", () => revokeToken(token));
      row.append(text, revoke);
      list.append(row);
    }
    $("no-tokens").hidden = state.tokens.length > 0;
  }

  async function refresh() {
    try {
      const [status, tokens] = await Promise.all([call("GET", "/auth/security"), call("GET", "/auth/tokens")]);
      state.status = status;
      state.tokens = tokens;
    } catch (err) {
      if (err.status !== 401) say(err.message, "error");
      state.status = null;
      state.token = null;
      state.tokens = [];
    }
    render();
  }

  async function signIn() {
    if (!window.PublicKeyCredential) return say("This browser does not support passkeys.", "error");
    try {
      state.token = null;
      const start = await call("POST", "/auth/sessions/passkey/start");
      const o = start.options;
      const publicKey = { ...o, challenge: toBytes(o.challenge), allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })) };
      const cred = await navigator.credentials.get({ publicKey });
      await call("POST", "/auth/sessions/passkey/finish", { challenge_id: start.challenge_id, credential: credentialJson(cred) });
      await refresh();
      say("Signed in.", "ok");
      $("passkey-name").focus();
    } catch (err) {
      say(err.name === "NotAllowedError" ? "Sign-in was cancelled." : "Could not sign in: " + err.message, "error");
    }
  }

  async function useToken(event) {
    event.preventDefault();
    const value = $("token").value.trim();
    if (!value) return say("Paste an API token first.", "error");
    state.token = value;
    $("token").value = "";
    await refresh();
    if (state.status) say("Using the token for this page only; it is not stored.", "ok");
    else say("That token was not accepted.", "error");
  }

  async function register(event) {
    event.preventDefault();
    if (!window.PublicKeyCredential) return say("This browser does not support passkeys.", "error");
    const name = $("passkey-name").value.trim();
    try {
      const start = await call("POST", "/auth/security/passkeys/start", name ? { name } : {});
      const o = start.options;
      const publicKey = {
        ...o,
        challenge: toBytes(o.challenge),
        user: { ...o.user, id: toBytes(o.user.id) },
        excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })),
      };
      const cred = await navigator.credentials.create({ publicKey });
      state.status = await call("POST", "/auth/security/passkeys/finish", { challenge_id: start.challenge_id, credential: credentialJson(cred), ...(name ? { name } : {}) });
      $("passkey-name").value = "";
      render();
      say("Passkey registered.", "ok");
    } catch (err) {
      say(err.name === "NotAllowedError" ? "Registration was cancelled." : err.name === "InvalidStateError" ? "This device already holds a passkey for you." : "Could not register: " + err.message, "error");
    }
  }

  async function removePasskey(key) {
    if (!window.confirm("Delete the passkey \u201c" + key.name + "\u201d? Sessions opened with it end too.")) return;
    try {
      await call("DELETE", "/auth/security/passkeys/" + encodeURIComponent(key.id));
      await refresh();
      say("Passkey deleted.", "ok");
    } catch (err) {
      say("Could not delete: " + err.message, "error");
    }
  }

  async function revokeToken(token) {
    if (!window.confirm("Revoke the token \u201c" + token.name + "\u201d? Anything using it stops working at once.")) return;
    try {
      await call("DELETE", "/auth/tokens/" + encodeURIComponent(token.id));
      await refresh();
      say(state.status ? "Token revoked." : "Token revoked; it was the one this page held.", "ok");
    } catch (err) {
      say("Could not revoke: " + err.message, "error");
    }
  }

  async function signOut() {
    try {
      await call("DELETE", "/auth/sessions/current");
    } catch (err) {
      if (err.status !== 401) return say("Could not sign out: " + err.message, "error");
    }
    state.status = null;
    render();
    say("Signed out.", "ok");
    $("sign-in").focus();
  }

  function forgetToken() {
    state.token = null;
    state.status = null;
    render();
    say("The token is forgotten.", "ok");
    $("sign-in").focus();
  }

  $("sign-in").addEventListener("click", signIn);
  $("token-form").addEventListener("submit", useToken);
  $("register-form").addEventListener("submit", register);
  $("sign-out").addEventListener("click", signOut);
  $("forget-token").addEventListener("click", forgetToken);
  refresh();
})();
`;

/**
 * The browser side of /docs (see docs-page.ts), shipped inline as plain JavaScript. Every string that
 * comes from the OpenAPI document or a response reaches the page through textContent, setAttribute or
 * input values, never through innerHTML. (Kept free of backticks and dollar-brace: it is a String.raw
 * template.)
 */
export const DOCS_SCRIPT = String.raw`
(function () {
  "use strict";
  var TOKEN_KEY = "herald-docs-token";
  var config = JSON.parse(document.getElementById("docs-config").textContent);
  var spec = null;
  var base = location.origin;
  var METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) for (var key in attrs) {
      var v = attrs[key];
      if (v == null || v === false) continue;
      if (key === "class") el.className = v;
      else if (key.slice(0, 2) === "on") el.addEventListener(key.slice(2), v);
      else if (key === "value") el.value = v;
      else el.setAttribute(key, v === true ? "" : String(v));
    }
    for (var i = 2; i < arguments.length; i++) add(el, arguments[i]);
    return el;
  }
  function add(el, child) {
    if (child == null || child === false) return;
    if (Array.isArray(child)) child.forEach(function (c) { add(el, c); });
    else el.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  /** Descriptions: paragraphs on blank lines, code spans between backticks; all as text nodes. */
  function prose(text) {
    var box = h("div", { class: "desc" });
    String(text || "").split(/\n\s*\n/).forEach(function (para) {
      var p = h("p");
      para.split("\x60").forEach(function (part, i) { add(p, i % 2 ? h("code", null, part) : part); });
      box.appendChild(p);
    });
    return box;
  }
  function show(v) { return typeof v === "string" ? v : JSON.stringify(v); }

  function pointer(ref) {
    if (typeof ref !== "string" || ref.indexOf("#/") !== 0) return undefined;
    return ref.slice(2).split("/").reduce(function (node, part) {
      return node == null ? undefined : node[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    }, spec);
  }
  /** Follow $ref chains; returns the target and the name of the last component it pointed to. */
  function resolve(node) {
    var name = null;
    for (var hops = 0; node && typeof node === "object" && node.$ref && hops < 20; hops++) {
      name = String(node.$ref).split("/").pop();
      node = pointer(node.$ref);
    }
    return { node: node && typeof node === "object" ? node : {}, name: name };
  }
  function nonNullType(s) {
    if (Array.isArray(s.type)) return s.type.filter(function (t) { return t !== "null"; })[0] || "null";
    return s.type || (s.properties || s.additionalProperties ? "object" : s.items ? "array" : undefined);
  }
  function typeLabel(raw, depth) {
    var r = resolve(raw), s = r.node, d = (depth || 0) + 1;
    if (d > 5) return r.name || "…";
    var sub = function (v) { return typeLabel(v, d); };
    var label = Array.isArray(s.type) ? s.type.join(" | ") : nonNullType(s);
    if (label && label.indexOf("array") >= 0 && s.items) label = label.replace("array", "array of " + sub(s.items));
    if (!label && (s.oneOf || s.anyOf)) label = (s.oneOf ? "one of " : "any of ") + (s.oneOf || s.anyOf).map(sub).join(", ");
    if (!label && s.allOf) label = "all of " + s.allOf.map(sub).join(", ");
    if (!label) label = "const" in s ? "constant" : "any";
    return r.name ? r.name + " (" + label + ")" : label;
  }
  var LIMITS = [["minimum", "≥ "], ["exclusiveMinimum", "> "], ["maximum", "≤ "], ["exclusiveMaximum", "< "], ["minLength", "min length "],
    ["maxLength", "max length "], ["minItems", "min items "], ["maxItems", "max items "], ["pattern", "pattern "]];
  function constraints(s) {
    var out = [];
    if (s.format) out.push("format: " + s.format);
    if (s.enum) out.push("one of: " + s.enum.map(show).join(", "));
    if ("const" in s) out.push("= " + show(s.const));
    LIMITS.forEach(function (l) { if (s[l[0]] != null) out.push(l[1] + s[l[0]]); });
    if ("default" in s) out.push("default " + show(s.default));
    if ("example" in s) out.push("example " + show(s.example));
    ["readOnly", "writeOnly", "deprecated"].forEach(function (k) { if (s[k]) out.push(k); });
    return out.map(function (c) { return h("span", { class: "chip mono" }, c); });
  }
  /** The inner structure worth expanding: object properties, map values, array items, variants. */
  function children(raw, depth, seen) {
    var r = resolve(raw), s = r.node;
    if (r.name && seen.indexOf(r.name) >= 0) return h("div", { class: "muted" }, "(" + r.name + ", see above)");
    if (depth > 8) return null;
    seen = r.name ? seen.concat(r.name) : seen;
    var t = nonNullType(s);
    if (t === "array" && s.items) return children(s.items, depth, seen);
    var variants = s.oneOf || s.anyOf || s.allOf;
    if (variants) return h("div", null, variants.map(function (v, i) {
      return h("div", { class: "prop" }, h("span", { class: "muted" }, (s.allOf ? "part " : "variant ") + (i + 1) + ": "),
        h("span", { class: "type mono" }, typeLabel(v, 0)), children(v, depth + 1, seen));
    }));
    if (t !== "object") return null;
    var box = h("div");
    var required = s.required || [];
    Object.keys(s.properties || {}).forEach(function (name) {
      box.appendChild(property(name, s.properties[name], required.indexOf(name) >= 0, depth, seen));
    });
    var extra = s.additionalProperties;
    if (extra && typeof extra === "object") box.appendChild(property("{any key}", extra, false, depth, seen));
    return box.childNodes.length ? box : null;
  }
  function property(name, raw, required, depth, seen) {
    var s = resolve(raw).node;
    var inner = children(raw, depth + 1, seen);
    var description = (raw && raw.description) || s.description;
    return h("div", { class: "prop" },
      h("span", { class: "pname mono" }, name), " ",
      required ? h("span", { class: "req" }, "required") : null, " ",
      h("span", { class: "type mono" }, typeLabel(raw)), " ", constraints(s),
      description ? prose(description) : null,
      inner ? h("details", { class: "sub", open: depth < 1 }, h("summary", null, "fields"), inner) : null);
  }
  function schemaBlock(raw) {
    var s = resolve(raw).node;
    return h("div", null, h("span", { class: "type mono" }, typeLabel(raw)), " ", constraints(s),
      s.description ? prose(s.description) : null, children(raw, 0, []));
  }

  /** A JSON value that fits the schema, for prefilling request bodies. */
  function sample(raw, depth, seen) {
    var r = resolve(raw), s = r.node;
    if (depth > 8 || (r.name && seen.indexOf(r.name) >= 0)) return null;
    seen = r.name ? seen.concat(r.name) : seen;
    if ("example" in s) return s.example;
    if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
    if ("default" in s) return s.default;
    if ("const" in s) return s.const;
    if (s.enum && s.enum.length) return s.enum[0];
    if ((s.oneOf || s.anyOf || []).length) return sample((s.oneOf || s.anyOf)[0], depth + 1, seen);
    if (s.allOf) return s.allOf.reduce(function (acc, part) {
      var v = sample(part, depth + 1, seen);
      return v && typeof v === "object" && !Array.isArray(v) ? Object.assign(acc, v) : acc;
    }, {});
    switch (nonNullType(s)) {
      case "object":
        var out = {};
        Object.keys(s.properties || {}).forEach(function (k) {
          var p = resolve(s.properties[k]).node;
          if (k !== "$schema" && !p.readOnly) out[k] = sample(s.properties[k], depth + 1, seen);
        });
        return out;
      case "array": return s.items ? [sample(s.items, depth + 1, seen)] : [];
      case "integer": case "number":
        return s.minimum != null ? s.minimum : s.exclusiveMinimum != null ? s.exclusiveMinimum + 1 : 0;
      case "boolean": return false;
      case "null": return null;
      case "string":
        var f = { "date-time": new Date().toISOString(), date: new Date().toISOString().slice(0, 10), email: "user@example.com",
          uri: "https://example.com", url: "https://example.com", uuid: "00000000-0000-4000-8000-000000000000" }[s.format];
        return f || "string";
      default: return null;
    }
  }

  function methodBadge(m) {
    var known = ["get", "post", "put", "patch", "delete"].indexOf(m) >= 0;
    return h("span", { class: "method m-" + (known ? m : "other") }, m);
  }
  function opId(m, path) { return "op-" + m + "-" + path.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, ""); }

  function tokenValue() { try { return sessionStorage.getItem(TOKEN_KEY) || ""; } catch (e) { return ""; } }
  function setToken(v) {
    try { if (v) sessionStorage.setItem(TOKEN_KEY, v); else sessionStorage.removeItem(TOKEN_KEY); } catch (e) {}
    document.querySelectorAll("input.token").forEach(function (el) { if (el.value !== v) el.value = v; });
  }

  function tryPanel(m, path, op, params) {
    var fields = [];
    var grid = h("div", { class: "grid" });
    var token = h("input", { class: "token mono", type: "password", autocomplete: "off", value: tokenValue(),
      placeholder: "hld_…", oninput: function (e) { setToken(e.target.value.trim()); } });
    grid.appendChild(h("label", null, "Bearer token"));
    grid.appendChild(h("div", null, token, " ", h("span", { class: "muted" }, "kept in this tab's sessionStorage only")));
    params.filter(function (p) { return p.in !== "cookie"; }).forEach(function (p) {
      var s = resolve(p.schema).node;
      var input = s.enum
        ? h("select", null, p.required ? null : h("option", { value: "" }, ""), s.enum.map(function (v) { return h("option", { value: show(v) }, show(v)); }))
        : h("input", { class: "mono", type: "text", placeholder: "example" in s ? show(s.example) : "default" in s ? show(s.default) : "" });
      if (s.enum && "default" in s) input.value = show(s.default);
      fields.push({ p: p, input: input });
      grid.appendChild(h("label", null, h("span", { class: "mono" }, p.name), " ", h("span", { class: "muted" }, "(" + p.in + ")"),
        p.required ? h("span", { class: "req" }, " *") : null));
      grid.appendChild(input);
    });
    var body = null, mediaType = null;
    var rb = op.requestBody && resolve(op.requestBody).node;
    if (rb && rb.content) {
      mediaType = Object.keys(rb.content)[0];
      var media = rb.content[mediaType] || {};
      var prefill = /json/.test(mediaType) ? JSON.stringify(sample(media.schema || {}, 0, []), null, 2) : "";
      body = h("textarea", { spellcheck: "false", "aria-label": "Request body" });
      body.value = prefill;
    }
    var out = h("div", { class: "result" });
    var send = h("button", { type: "submit" }, "Send");
    var form = h("form", { class: "try", onsubmit: function (e) {
      e.preventDefault();
      run(m, path, op, fields, body, mediaType, token, send, out);
    } }, h("strong", null, "Try it"),
      h("div", { class: "muted" }, "Requests go to " + base + ", with your token if you give one."), grid,
      body ? [h("h3", null, "Body (" + mediaType + ")"), body] : null, send, out);
    return form;
  }

  function run(m, path, op, fields, body, mediaType, token, send, out) {
    out.textContent = "";
    var url = path, query = new URLSearchParams(), headers = {}, missing = [];
    fields.forEach(function (f) {
      var v = f.input.value;
      if (v === "") { if (f.p.required) missing.push(f.p.name); return; }
      if (f.p.in === "path") url = url.split("{" + f.p.name + "}").join(encodeURIComponent(v));
      else if (f.p.in === "query") query.append(f.p.name, v);
      else if (f.p.in === "header") headers[f.p.name] = v;
    });
    if (missing.length) { out.appendChild(h("p", { class: "error" }, "Required: " + missing.join(", "))); return; }
    var init = { method: m.toUpperCase(), headers: headers };
    if (token.value.trim()) headers.authorization = "Bearer " + token.value.trim();
    if (body && m !== "get" && m !== "head") {
      if (/json/.test(mediaType) && body.value.trim()) {
        try { JSON.parse(body.value); } catch (e) { out.appendChild(h("p", { class: "error" }, "The body is not valid JSON: " + e.message)); return; }
      }
      init.body = body.value;
      headers["content-type"] = mediaType;
    }
    var qs = query.toString();
    var target = base + url + (qs ? "?" + qs : "");
    var started = performance.now();
    send.disabled = true;
    fetch(target, init).then(function (res) {
      return res.text().then(function (text) {
        var ms = Math.round(performance.now() - started);
        var pretty = text;
        try { if (text) pretty = JSON.stringify(JSON.parse(text), null, 2); } catch (e) {}
        var lines = [];
        res.headers.forEach(function (v, k) { lines.push(k + ": " + v); });
        out.appendChild(h("h3", null, "Response"));
        out.appendChild(h("p", null, h("span", { class: "status s" + String(res.status)[0] }, res.status + " " + res.statusText),
          h("span", { class: "muted" }, "  " + init.method + " " + target + " · " + ms + " ms")));
        out.appendChild(h("details", { class: "sub" }, h("summary", null, "Headers (" + lines.length + ")"), h("pre", null, lines.join("\n"))));
        out.appendChild(h("pre", { class: "mono" }, pretty || "(empty body)"));
      });
    }).catch(function (err) {
      out.appendChild(h("p", { class: "error" }, "Request failed: " + (err && err.message ? err.message : String(err))));
    }).finally(function () { send.disabled = false; });
  }

  function operation(m, path, op, pathItem) {
    var params = (pathItem.parameters || []).concat(op.parameters || []).map(function (p) { return resolve(p).node; });
    var security = op.security || spec.security || [];
    var body = h("div", { class: "body" });
    if (op.description) body.appendChild(prose(op.description));
    if (op.deprecated) body.appendChild(h("p", { class: "error" }, "Deprecated"));
    if (params.length) {
      body.appendChild(h("h3", null, "Parameters"));
      params.forEach(function (p) {
        var s = resolve(p.schema).node;
        body.appendChild(h("div", { class: "prop" }, h("span", { class: "pname mono" }, p.name), " ", h("span", { class: "muted" }, "in " + p.in), " ",
          p.required ? h("span", { class: "req" }, "required") : null, " ", h("span", { class: "type mono" }, typeLabel(p.schema || {})), " ",
          constraints(s), p.description || s.description ? prose(p.description || s.description) : null));
      });
    }
    var rb = op.requestBody && resolve(op.requestBody).node;
    if (rb && rb.content) {
      body.appendChild(h("h3", null, "Request body" + (rb.required ? " (required)" : "")));
      if (rb.description) body.appendChild(prose(rb.description));
      Object.keys(rb.content).forEach(function (type) {
        body.appendChild(h("div", null, h("code", null, type), schemaBlock(rb.content[type].schema || {})));
      });
    }
    body.appendChild(h("h3", null, "Responses"));
    Object.keys(op.responses || {}).sort().forEach(function (status) {
      var res = resolve(op.responses[status]).node;
      var content = res.content || {};
      body.appendChild(h("details", { class: "resp", open: /^2/.test(status) },
        h("summary", null, h("span", { class: "status s" + status[0] }, status), " ", res.description || ""),
        Object.keys(res.headers || {}).map(function (name) {
          var hd = resolve(res.headers[name]).node;
          return h("div", { class: "prop" }, h("span", { class: "pname mono" }, name), " header ", hd.description ? prose(hd.description) : null);
        }),
        Object.keys(content).length ? Object.keys(content).map(function (type) {
          return h("div", null, h("code", null, type), schemaBlock(content[type].schema || {}));
        }) : h("div", { class: "muted" }, "No body")));
    });
    body.appendChild(tryPanel(m, path, op, params));
    var search = (m + " " + path + " " + (op.summary || "") + " " + (op.operationId || "")).toLowerCase();
    return h("details", { class: "op", id: opId(m, path), "data-search": search },
      h("summary", null, methodBadge(m), h("span", { class: "path mono" }, path), h("span", null, op.summary || ""),
        security.length ? h("span", { class: "lock" }, "bearer token") : h("span", { class: "lock" }, "public")), body);
  }

  function render() {
    document.getElementById("info").appendChild(prose((spec.info && spec.info.description) || ""));
    var server = spec.servers && spec.servers[0] && spec.servers[0].url;
    try {
      var u = new URL(server || "/", location.href);
      base = u.origin === location.origin ? u.href.replace(/\/+$/, "") : location.origin;
    } catch (e) { base = location.origin; }
    var groups = {}, order = [];
    (spec.tags || []).forEach(function (t) { groups[t.name] = { tag: t, ops: [] }; order.push(t.name); });
    Object.keys(spec.paths || {}).forEach(function (path) {
      var item = spec.paths[path];
      METHODS.forEach(function (m) {
        if (!item[m]) return;
        var tag = (item[m].tags && item[m].tags[0]) || "other";
        if (!groups[tag]) { groups[tag] = { tag: { name: tag }, ops: [] }; order.push(tag); }
        groups[tag].ops.push({ m: m, path: path, op: item[m], item: item });
      });
    });
    var nav = document.getElementById("nav"), ops = document.getElementById("ops");
    order.forEach(function (name) {
      var g = groups[name];
      if (!g.ops.length) return;
      nav.appendChild(h("h2", null, name));
      var section = h("section", { class: "tag" }, h("h2", null, name), g.tag.description ? prose(g.tag.description) : null);
      g.ops.forEach(function (o) {
        var el = operation(o.m, o.path, o.op, o.item);
        section.appendChild(el);
        nav.appendChild(h("a", { href: "#" + el.id, "data-search": el.getAttribute("data-search") }, methodBadge(o.m), h("span", { class: "mono" }, o.path)));
      });
      ops.appendChild(section);
    });
    document.getElementById("filter").addEventListener("input", function (e) {
      var q = e.target.value.toLowerCase();
      document.querySelectorAll("[data-search]").forEach(function (el) { el.classList.toggle("hidden", el.getAttribute("data-search").indexOf(q) < 0); });
    });
    openFromHash();
    document.getElementById("status").textContent = "";
  }
  function openFromHash() {
    var el = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (el && el.tagName === "DETAILS") { el.open = true; el.scrollIntoView(); }
  }
  window.addEventListener("hashchange", openFromHash);

  function load(url) {
    return fetch(url, { headers: { accept: "application/json" } }).then(function (res) {
      if (!res.ok) throw new Error("HTTP " + res.status);
      return res.json();
    });
  }
  load(config.specUrl).catch(function () {
    // Reached under another host name than PUBLIC_BASE_URL: the document sits next to this page.
    return load(new URL("openapi.json", location.href).href);
  }).then(function (doc) { spec = doc; render(); }).catch(function (err) {
    var status = document.getElementById("status");
    status.className = "error";
    status.textContent = "Could not load the OpenAPI document: " + (err && err.message ? err.message : String(err));
  });
})();
`;

import type { ScopedKind } from "../../lib/http/scoped-resources";

/**
 * Requests for each operation that is declared but not built: a valid one (answered 501 for now) and
 * invalid ones with the `errors[].location` the 422 must name.
 */
export interface Req {
  method: string;
  path: string;
  json?: unknown;
  headers?: Record<string, string>;
}

export interface Invalid {
  name: string;
  req: (ws: string) => Req;
  location: string;
}

export interface Case {
  op: string;
  valid: (ws: string) => Req;
  /** The workspace is named in the query or body: non-members get 404 before anything else. */
  scoped?: boolean;
  /** Instance administrators only: others get 403. */
  adminOnly?: boolean;
  invalid: Invalid[];
}

/**
 * Resources of the caller's own workspace that the requests below name (filled by the test's beforeAll from
 * test/helpers/scoped-fixtures.ts): an unknown id would be 404 before its request is validated.
 */
export const FIXTURES: Record<ScopedKind, string> = {
  publication: "",
  build: "",
  media: "",
  "voice-profile": "",
  design: "",
  template: "",
  "video-project": "",
  account: "",
  "repost-policy": "",
  "repost-grant": "",
  "webhook-endpoint": "",
};

export const BIG = "x".repeat(100_000);
const LONG_ID = "i".repeat(300);
/** JSON nested 40 deep: past the 32 levels free-form members accept. */
const DEEP = JSON.parse("[".repeat(40) + "]".repeat(40));

const credential = {
  id: "AQIDBA",
  rawId: "AQIDBA",
  type: "public-key",
  response: { clientDataJSON: "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0", attestationObject: "o2NmbXRkbm9uZQ", transports: ["internal"] },
  clientExtensionResults: {},
};

export const imageDocument = {
  schema_version: 1,
  title: "Launch card",
  width_px: 1080,
  height_px: 1080,
  export_defaults: { format: "png", quality: 0.9 },
  pages: [
    {
      id: "page-1",
      name: "Page 1",
      background_color: "#ffffff",
      layers: [
        {
          id: "layer-1",
          name: "Headline",
          type: "text",
          locked: false,
          visible: true,
          opacity: 1,
          transform: { x: 40, y: 40, width: 1000, height: 200, rotation: 0 },
          text: { text: "Hello", font_size: 64, font_weight: 700, wrap: "word" },
        },
      ],
    },
  ],
};

const repostPolicy = (ws: string, rule: Record<string, unknown> = {}) => ({
  workspace_id: ws,
  name: "Boost",
  source_account_ids: ["acc_unknown"],
  target_account_ids: ["acc_unknown"],
  rule: { threshold_mode: "all", min_likes: 1, evaluation_window_seconds: 86_400, stages: [{ delay_seconds: 0, unrepost_previous: false }], ...rule },
});
const get = (path: string): Req => ({ method: "GET", path });
const post = (path: string, json?: unknown, headers?: Record<string, string>): Req => ({ method: "POST", path, json, headers });

export const CASES: Case[] = [
  {
    op: "POST /auth/security/passkeys/finish",
    valid: () => post("/auth/security/passkeys/finish", { challenge_id: "chl_1", credential, name: "Laptop" }),
    invalid: [
      { name: "100 KB challenge_id", req: () => post("/auth/security/passkeys/finish", { challenge_id: BIG, credential }), location: "body.challenge_id" },
      {
        name: "wrong credential type",
        req: () => post("/auth/security/passkeys/finish", { challenge_id: "c", credential: { ...credential, type: "password" } }),
        location: "body.credential.type",
      },
    ],
  },
  {
    op: "POST /voice-profiles/{id}/default",
    scoped: true,
    valid: (ws) => post(`/voice-profiles/${FIXTURES["voice-profile"]}/default`, { expected_revision: 1, workspace_id: ws }),
    invalid: [
      {
        name: "revision as a string",
        req: (ws) => post(`/voice-profiles/${FIXTURES["voice-profile"]}/default`, { expected_revision: "1", workspace_id: ws }),
        location: "body.expected_revision",
      },
      {
        name: "revision 0",
        req: (ws) => post(`/voice-profiles/${FIXTURES["voice-profile"]}/default`, { expected_revision: 0, workspace_id: ws }),
        location: "body.expected_revision",
      },
      {
        name: "100 KB workspace_id",
        req: () => post(`/voice-profiles/${FIXTURES["voice-profile"]}/default`, { expected_revision: 1, workspace_id: BIG }),
        location: "body.workspace_id",
      },
    ],
  },
  {
    op: "POST /image-editor/designs/{id}/revisions/{revision_id}/restore",
    valid: () => post(`/image-editor/designs/${FIXTURES.design}/revisions/rev_1/restore`, { expected_revision: 3 }),
    invalid: [
      {
        name: "fractional revision",
        req: () => post(`/image-editor/designs/${FIXTURES.design}/revisions/rev_1/restore`, { expected_revision: 1.5 }),
        location: "body.expected_revision",
      },
      { name: "overlong id", req: () => post(`/image-editor/designs/${LONG_ID}/revisions/rev_1/restore`, { expected_revision: 1 }), location: "path.id" },
    ],
  },
  {
    op: "GET /image-editor/templates",
    scoped: true,
    valid: (ws) => get(`/image-editor/templates?workspace_id=${ws}`),
    invalid: [
      { name: "no workspace_id", req: () => get("/image-editor/templates"), location: "query.workspace_id" },
      { name: "100 KB workspace_id", req: () => get(`/image-editor/templates?workspace_id=${BIG}`), location: "query.workspace_id" },
    ],
  },
  {
    op: "PATCH /image-editor/templates/{id}",
    valid: () => ({
      method: "PATCH",
      path: `/image-editor/templates/${FIXTURES.template}`,
      json: { name: "Launch", category: "social", document: imageDocument },
    }),
    invalid: [
      {
        name: "100 KB name",
        req: () => ({ method: "PATCH", path: `/image-editor/templates/${FIXTURES.template}`, json: { name: BIG } }),
        location: "body.name",
      },
      { name: "nothing to change", req: () => ({ method: "PATCH", path: `/image-editor/templates/${FIXTURES.template}`, json: {} }), location: "body" },
      {
        name: "width as a string",
        req: () => ({ method: "PATCH", path: `/image-editor/templates/${FIXTURES.template}`, json: { document: { ...imageDocument, width_px: "wide" } } }),
        location: "body.document.width_px",
      },
      {
        name: "layer without transform",
        req: () => ({
          method: "PATCH",
          path: `/image-editor/templates/${FIXTURES.template}`,
          json: {
            document: { ...imageDocument, pages: [{ ...imageDocument.pages[0], layers: [{ ...imageDocument.pages[0].layers[0], transform: undefined }] }] },
          },
        }),
        location: "body.document.pages[0].layers[0].transform",
      },
    ],
  },
  {
    op: "POST /video-projects/{id}/mutations",
    scoped: true,
    valid: (ws) =>
      post("/video-projects/vpr_1/mutations", {
        workspace_id: ws,
        base_revision: 1,
        mutation_id: "m-1",
        operations: [
          { kind: "set", target: "clip-1", path: "/style/color", value: "#fff" },
          { kind: "remove", target: "clip-2", path: "" },
        ],
      }),
    invalid: [
      {
        name: "unknown kind",
        req: (ws) =>
          post("/video-projects/vpr_1/mutations", {
            workspace_id: ws,
            base_revision: 1,
            mutation_id: "m",
            operations: [{ kind: "move", target: "t", path: "/a" }],
          }),
        location: "body.operations[0].kind",
      },
      {
        name: "set without value",
        req: (ws) =>
          post("/video-projects/vpr_1/mutations", {
            workspace_id: ws,
            base_revision: 1,
            mutation_id: "m",
            operations: [{ kind: "set", target: "t", path: "/a" }],
          }),
        location: "body.operations[0].value",
      },
      {
        name: "path not a JSON Pointer",
        req: (ws) =>
          post("/video-projects/vpr_1/mutations", {
            workspace_id: ws,
            base_revision: 1,
            mutation_id: "m",
            operations: [{ kind: "remove", target: "t", path: "a/b" }],
          }),
        location: "body.operations[0].path",
      },
      {
        name: "value nested 40 deep",
        req: (ws) =>
          post("/video-projects/vpr_1/mutations", {
            workspace_id: ws,
            base_revision: 1,
            mutation_id: "m",
            operations: [{ kind: "set", target: "t", path: "/a", value: DEEP }],
          }),
        location: "body.operations[0].value",
      },
      {
        name: "100 KB mutation_id",
        req: (ws) =>
          post("/video-projects/vpr_1/mutations", {
            workspace_id: ws,
            base_revision: 1,
            mutation_id: BIG,
            operations: [{ kind: "remove", target: "t", path: "/a" }],
          }),
        location: "body.mutation_id",
      },
    ],
  },
  {
    op: "GET /publications",
    scoped: true,
    valid: (ws) => get(`/publications?workspace_id=${ws}&activity_bucket=scheduled&limit=200&offset=0&created_from=2026-01-01T00:00:00Z`),
    invalid: [
      { name: "limit not a number", req: (ws) => get(`/publications?workspace_id=${ws}&limit=abc`), location: "query.limit" },
      { name: "limit over 200", req: (ws) => get(`/publications?workspace_id=${ws}&limit=201`), location: "query.limit" },
      { name: "unknown activity bucket", req: (ws) => get(`/publications?workspace_id=${ws}&activity_bucket=archived`), location: "query.activity_bucket" },
      { name: "created_from not RFC 3339", req: (ws) => get(`/publications?workspace_id=${ws}&created_from=yesterday`), location: "query.created_from" },
      { name: "100 KB search", req: (ws) => get(`/publications?workspace_id=${ws}&search=${BIG}`), location: "query.search" },
    ],
  },
  {
    op: "PUT /publications/{id}",
    valid: () => ({
      method: "PUT",
      path: `/publications/${FIXTURES.publication}`,
      json: { expected_revision: 1, title: "New title", scheduled_at: null },
      headers: { "idempotency-key": "k-1" },
    }),
    invalid: [
      {
        name: "revision as a string",
        req: () => ({ method: "PUT", path: `/publications/${FIXTURES.publication}`, json: { expected_revision: "2" } }),
        location: "body.expected_revision",
      },
      {
        name: "100 KB source_text",
        req: () => ({ method: "PUT", path: `/publications/${FIXTURES.publication}`, json: { expected_revision: 1, source_text: BIG } }),
        location: "body.source_text",
      },
      {
        name: "oversized metadata",
        req: () => ({ method: "PUT", path: `/publications/${FIXTURES.publication}`, json: { expected_revision: 1, metadata: { note: "y".repeat(20_000) } } }),
        location: "body.metadata",
      },
      {
        name: "metadata nested 40 deep",
        req: () => ({ method: "PUT", path: `/publications/${FIXTURES.publication}`, json: { expected_revision: 1, metadata: { a: DEEP } } }),
        location: "body.metadata",
      },
      {
        name: "201-character Idempotency-Key",
        req: () => ({
          method: "PUT",
          path: `/publications/${FIXTURES.publication}`,
          json: { expected_revision: 1 },
          headers: { "idempotency-key": "k".repeat(201) },
        }),
        location: "header.idempotency-key",
      },
    ],
  },
  {
    op: "POST /publications/{id}/publish-now",
    valid: () => post(`/publications/${FIXTURES.publication}/publish-now`, { expected_revision: 1 }, { "idempotency-key": "k-1" }),
    invalid: [
      { name: "no expected_revision", req: () => post(`/publications/${FIXTURES.publication}/publish-now`, {}), location: "body.expected_revision" },
      {
        name: "201-character Idempotency-Key",
        req: () => post(`/publications/${FIXTURES.publication}/publish-now`, { expected_revision: 1 }, { "idempotency-key": "k".repeat(201) }),
        location: "header.idempotency-key",
      },
    ],
  },
  {
    op: "DELETE /publications/{id}",
    // A stale revision (409): the publication stays for the cases below.
    valid: () => ({ method: "DELETE", path: `/publications/${FIXTURES.publication}?confirm=true&expected_revision=99` }),
    invalid: [
      {
        name: "confirm=yes",
        req: () => ({ method: "DELETE", path: `/publications/${FIXTURES.publication}?confirm=yes&expected_revision=1` }),
        location: "query.confirm",
      },
      {
        name: "expected_revision 0",
        req: () => ({ method: "DELETE", path: `/publications/${FIXTURES.publication}?confirm=true&expected_revision=0` }),
        location: "query.expected_revision",
      },
    ],
  },
  {
    op: "POST /publication-opportunities/discover",
    scoped: true,
    valid: (ws) => post("/publication-opportunities/discover", { workspace_id: ws, platforms: ["bluesky", "mastodon"] }),
    invalid: [
      {
        name: "platforms not an array",
        req: (ws) => post("/publication-opportunities/discover", { workspace_id: ws, platforms: "bluesky" }),
        location: "body.platforms",
      },
      {
        name: "100 KB platform",
        req: (ws) => post("/publication-opportunities/discover", { workspace_id: ws, platforms: [BIG] }),
        location: "body.platforms[0]",
      },
    ],
  },
  {
    op: "GET /analytics",
    scoped: true,
    valid: (ws) => get(`/analytics?workspace_id=${ws}&days=90&source=external&sort=views&limit=100`),
    invalid: [
      { name: "days 14", req: (ws) => get(`/analytics?workspace_id=${ws}&days=14`), location: "query.days" },
      { name: "unknown source", req: (ws) => get(`/analytics?workspace_id=${ws}&source=mixed`), location: "query.source" },
      { name: "unknown sort", req: (ws) => get(`/analytics?workspace_id=${ws}&sort=likes`), location: "query.sort" },
      { name: "limit 0", req: (ws) => get(`/analytics?workspace_id=${ws}&limit=0`), location: "query.limit" },
      { name: "limit 101", req: (ws) => get(`/analytics?workspace_id=${ws}&limit=101`), location: "query.limit" },
    ],
  },
  {
    op: "GET /accounts/providers",
    scoped: true,
    valid: (ws) => get(`/accounts/providers?workspace_id=${ws}`),
    invalid: [{ name: "100 KB workspace_id", req: () => get(`/accounts/providers?workspace_id=${BIG}`), location: "query.workspace_id" }],
  },
  {
    op: "POST /accounts/{account_id}/refresh-metadata",
    valid: () => post("/accounts/acc_1/refresh-metadata"),
    invalid: [{ name: "overlong account_id", req: () => post(`/accounts/${LONG_ID}/refresh-metadata`), location: "path.account_id" }],
  },
  {
    op: "POST /messages/refresh",
    scoped: true,
    valid: (ws) => post("/messages/refresh", { workspace_id: ws }),
    invalid: [{ name: "workspace_id a number", req: () => post("/messages/refresh", { workspace_id: 5 }), location: "body.workspace_id" }],
  },
  {
    op: "GET /media",
    scoped: true,
    valid: (ws) =>
      get(
        `/media?workspace_id=${ws}&filter=favorites&sort=recently_used&lifecycle=trash&aspect=square&untagged=false&min_width=0&date_from=2026-01-31&limit=200`,
      ),
    invalid: [
      { name: "unknown filter", req: (ws) => get(`/media?workspace_id=${ws}&filter=recent`), location: "query.filter" },
      { name: "unknown lifecycle", req: (ws) => get(`/media?workspace_id=${ws}&lifecycle=archive`), location: "query.lifecycle" },
      { name: "negative min_width", req: (ws) => get(`/media?workspace_id=${ws}&min_width=-1`), location: "query.min_width" },
      { name: "limit over 200", req: (ws) => get(`/media?workspace_id=${ws}&limit=201`), location: "query.limit" },
      { name: "untagged=yes", req: (ws) => get(`/media?workspace_id=${ws}&untagged=yes`), location: "query.untagged" },
      { name: "impossible date", req: (ws) => get(`/media?workspace_id=${ws}&date_from=2026-02-30`), location: "query.date_from" },
    ],
  },
  {
    op: "GET /repost-automation",
    scoped: true,
    valid: (ws) => get(`/repost-automation?workspace_id=${ws}`),
    invalid: [{ name: "no workspace_id", req: () => get("/repost-automation"), location: "query.workspace_id" }],
  },
  {
    op: "POST /repost-automation/policies",
    scoped: true,
    valid: (ws) => post("/repost-automation/policies", repostPolicy(ws)),
    invalid: [
      {
        name: "window beyond 7 days",
        req: (ws) => post("/repost-automation/policies", repostPolicy(ws, { evaluation_window_seconds: 604_801 })),
        location: "body.rule.evaluation_window_seconds",
      },
      {
        name: "plateau_checks 1 with require_plateau",
        req: (ws) => post("/repost-automation/policies", repostPolicy(ws, { require_plateau: true, plateau_checks: 1 })),
        location: "body.rule.plateau_checks",
      },
      { name: "no stage", req: (ws) => post("/repost-automation/policies", repostPolicy(ws, { stages: [] })), location: "body.rule.stages" },
      {
        name: "min beyond int range",
        req: (ws) => post("/repost-automation/policies", repostPolicy(ws, { min_likes: 2 ** 31 })),
        location: "body.rule.min_likes",
      },
      { name: "100 KB name", req: (ws) => post("/repost-automation/policies", { ...repostPolicy(ws), name: BIG }), location: "body.name" },
    ],
  },
  {
    op: "PUT /repost-automation/policies/{id}",
    valid: (ws) => ({
      method: "PUT",
      path: `/repost-automation/policies/${FIXTURES["repost-policy"]}`,
      json: { ...repostPolicy(ws), workspace_id: undefined, expected_revision: 1 },
    }),
    invalid: [
      {
        name: "expected_revision beyond int range",
        req: (ws) => ({
          method: "PUT",
          path: `/repost-automation/policies/${FIXTURES["repost-policy"]}`,
          json: { ...repostPolicy(ws), workspace_id: undefined, expected_revision: 2 ** 31 },
        }),
        location: "body.expected_revision",
      },
      {
        name: "negative delay",
        req: (ws) => ({
          method: "PUT",
          path: `/repost-automation/policies/${FIXTURES["repost-policy"]}`,
          json: { ...repostPolicy(ws, { stages: [{ delay_seconds: -1, unrepost_previous: false }] }), workspace_id: undefined, expected_revision: 1 },
        }),
        location: "body.rule.stages[0].delay_seconds",
      },
    ],
  },
  {
    op: "DELETE /repost-automation/policies/{id}",
    valid: () => ({ method: "DELETE", path: `/repost-automation/policies/${FIXTURES["repost-policy"]}` }),
    invalid: [{ name: "300-character id", req: () => ({ method: "DELETE", path: `/repost-automation/policies/${LONG_ID}` }), location: "path.id" }],
  },
  {
    op: "DELETE /repost-automation/grants/{id}",
    valid: () => ({ method: "DELETE", path: `/repost-automation/grants/${FIXTURES["repost-grant"]}` }),
    invalid: [{ name: "300-character id", req: () => ({ method: "DELETE", path: `/repost-automation/grants/${LONG_ID}` }), location: "path.id" }],
  },
  {
    op: "GET /repost-automation/activity",
    scoped: true,
    valid: (ws) => get(`/repost-automation/activity?workspace_id=${ws}&limit=200`),
    invalid: [{ name: "limit over 200", req: (ws) => get(`/repost-automation/activity?workspace_id=${ws}&limit=201`), location: "query.limit" }],
  },
  {
    op: "POST /repost-automation/grants",
    valid: (ws) => post("/repost-automation/grants", { target_account_id: FIXTURES.account, source_workspace_id: ws }),
    invalid: [
      {
        name: "source_workspace_id a number",
        req: () => post("/repost-automation/grants", { target_account_id: FIXTURES.account, source_workspace_id: 5 }),
        location: "body.source_workspace_id",
      },
      {
        name: "300-character account id",
        req: (ws) => post("/repost-automation/grants", { target_account_id: LONG_ID, source_workspace_id: ws }),
        location: "body.target_account_id",
      },
    ],
  },
  {
    op: "GET /billing/status",
    scoped: true,
    valid: (ws) => get(`/billing/status?workspace_id=${ws}`),
    invalid: [{ name: "100 KB organization_id", req: () => get(`/billing/status?organization_id=${BIG}`), location: "query.organization_id" }],
  },
  {
    op: "PUT /admin/instance-settings",
    adminOnly: true,
    // Clearing a key no other test uses: valid, and harmless to the shared database once built.
    valid: () => ({ method: "PUT", path: "/admin/instance-settings", json: { settings: [{ key: "ai_base_url", value: "" }] } }),
    invalid: [
      {
        name: "value a number",
        req: () => ({ method: "PUT", path: "/admin/instance-settings", json: { settings: [{ key: "ai_model", value: 5 }] } }),
        location: "body.settings[0].value",
      },
      {
        name: "100 KB value",
        req: () => ({ method: "PUT", path: "/admin/instance-settings", json: { settings: [{ key: "ai_model", value: BIG }] } }),
        location: "body.settings[0].value",
      },
    ],
  },
];

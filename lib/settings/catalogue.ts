/**
 * Every instance setting Herald knows (CONTRACT.md §6, SPEC.md 2.11). Plain data and pure checks: no HTTP,
 * no database. The environment variable of a setting is its key in upper case and always wins over a saved
 * value, so a deployment can pin anything.
 */
export type SettingType = "string" | "url" | "integer" | "boolean" | "secret";

export interface SettingDefinition {
  key: string;
  label: string;
  description: string;
  group: "general" | "media" | "ai" | "billing" | "networks";
  type: SettingType;
  secret: boolean;
  /** Allowed values for enumerated settings (booleans: `true` / `false`). */
  options: { label: string; value: string }[];
  /**
   * Read from the database on every use instead of once per isolate (lib/settings/live.ts): settings that decide
   * money (billing on or off, the payment provider's keys), so every Worker applies a change at once.
   */
  live?: true;
  /** Why a value is refused, or null when it is fine. Never quotes the value (it may be a secret). */
  check(value: string, ctx: CheckContext): string | null;
}

/** What a check may depend on besides the value. */
export interface CheckContext {
  /** ALLOW_PRIVATE_URLS=true (tests, `npm start`): a URL setting may point at a local stand-in. */
  allowPrivateUrls?: boolean;
}

/** The only host Stripe's secret key may be sent to, unless ALLOW_PRIVATE_URLS=true. */
export const STRIPE_API_ORIGIN = "https://api.stripe.com";

const MAX_VALUE = 2000;
const BOOLEAN_OPTIONS = [
  { label: "On", value: "true" },
  { label: "Off", value: "false" },
];

function httpUrl(value: string, opts: { pathAllowed: boolean }): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "Must be an absolute http(s) URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Must use http or https";
  if (url.username || url.password) return "Must not carry a user name or password";
  if (url.search || url.hash) return "Must not carry a query or fragment";
  if (!opts.pathAllowed && url.pathname !== "/") return "Must be an origin only (no path)";
  return null;
}

/** Stripe's own origin, or any origin when private URLs are allowed (a stand-in in tests). */
function stripeOrigin(value: string, ctx: CheckContext): string | null {
  if (ctx.allowPrivateUrls) return null;
  return new URL(value).origin === STRIPE_API_ORIGIN ? null : `Must be ${STRIPE_API_ORIGIN} (another origin only with ALLOW_PRIVATE_URLS=true)`;
}

/**
 * The OAuth networks (CONTRACT §9) and the origins each platform's own API and OAuth endpoints live on: a
 * `<platform>_api_base` / `<platform>_auth_base` setting must be one of them (the client secret and the
 * account's tokens go there), or anything when ALLOW_PRIVATE_URLS=true (a stand-in in tests and `npm start`).
 * The endpoints themselves are in lib/providers/oauth/platforms.ts.
 */
export const NETWORK_ORIGINS = {
  x: { name: "X", api: "https://api.x.com", auth: ["https://x.com", "https://api.x.com", "https://twitter.com", "https://api.twitter.com"] },
  linkedin: { name: "LinkedIn", api: "https://api.linkedin.com", auth: ["https://www.linkedin.com"] },
  threads: {
    name: "Threads",
    api: "https://graph.threads.net",
    auth: ["https://threads.com", "https://www.threads.com", "https://threads.net", "https://www.threads.net", "https://graph.threads.net"],
  },
  facebook: { name: "Facebook", api: "https://graph.facebook.com", auth: ["https://www.facebook.com", "https://graph.facebook.com"] },
  instagram: {
    name: "Instagram",
    api: "https://graph.instagram.com",
    auth: ["https://www.instagram.com", "https://api.instagram.com", "https://www.facebook.com", "https://graph.facebook.com"],
  },
  tiktok: { name: "TikTok", api: "https://open.tiktokapis.com", auth: ["https://www.tiktok.com", "https://open.tiktokapis.com"] },
  youtube: { name: "YouTube", api: "https://www.googleapis.com", auth: ["https://accounts.google.com", "https://oauth2.googleapis.com"] },
} as const;

export type OAuthNetwork = keyof typeof NETWORK_ORIGINS;

/** An http(s) base URL (a path allowed, for a stand-in mounted under a prefix) on one of the platform's own origins. */
const networkBase = (origins: readonly string[], what: string) => (value: string, ctx: CheckContext) => {
  const shape = httpUrl(value, { pathAllowed: true });
  if (shape || ctx.allowPrivateUrls) return shape;
  return origins.includes(new URL(value).origin) ? null : `Must be ${what}'s own (${origins.join(", ")}); another origin only with ALLOW_PRIVATE_URLS=true`;
};

function networkSettings(platform: OAuthNetwork): SettingDefinition[] {
  const { name, api, auth } = NETWORK_ORIGINS[platform];
  const common = { group: "networks" as const, live: true as const, options: [] };
  return [
    {
      ...common,
      key: `${platform}_client_id`,
      label: `${name} client id`,
      description: `The client id of the app the operator registered with ${name}${platform === "tiktok" ? " (TikTok's client key)" : ""}. With the secret, ${name} can be connected. Applies at once.`,
      type: "string",
      secret: false,
      check: (v) => (/^[\x21-\x7e]{1,500}$/.test(v) ? null : "Must be printable ASCII without spaces"),
    },
    {
      ...common,
      key: `${platform}_client_secret`,
      label: `${name} client secret`,
      description: `The client secret of the ${name} app. Stored encrypted; never shown again. Applies at once.`,
      type: "secret",
      secret: true,
      check: (v) => (/^[\x21-\x7e]{1,2000}$/.test(v) ? null : "Must be printable ASCII without spaces"),
    },
    {
      ...common,
      key: `${platform}_api_base`,
      label: `${name} API base URL`,
      description: `Where ${name}'s API is reached (default ${api}); another origin only with ALLOW_PRIVATE_URLS=true (a stand-in). Applies at once.`,
      type: "url",
      secret: false,
      check: networkBase([api], name),
    },
    {
      ...common,
      key: `${platform}_auth_base`,
      label: `${name} OAuth base URL`,
      description: `Replaces the origin of ${name}'s OAuth endpoints (authorize, token, refresh; default ${name}'s own: ${auth.join(", ")}); another origin only with ALLOW_PRIVATE_URLS=true (a stand-in). Applies at once.`,
      type: "url",
      secret: false,
      check: networkBase(auth, name),
    },
  ];
}

const integer = (min: number, max: number) => (value: string) =>
  /^\d{1,16}$/.test(value) && Number(value) >= min && Number(value) <= max ? null : `Must be a whole number from ${min} to ${max}`;

const prefixed = (prefixes: string[], what: string) => (value: string) =>
  prefixes.some((p) => value.startsWith(p)) && /^[\x21-\x7e]{8,500}$/.test(value) ? null : `Must be a ${what} (starting with ${prefixes.join(" or ")})`;

export const SETTINGS: readonly SettingDefinition[] = [
  {
    key: "public_base_url",
    label: "Public base URL",
    description: "Origin people and providers use to reach Herald: `$schema` URLs, links, and the passkey relying party (its host is the WebAuthn RP ID).",
    group: "general",
    type: "url",
    secret: false,
    options: [],
    check: (v) => httpUrl(v, { pathAllowed: false }),
  },
  {
    key: "media_max_bytes",
    label: "Largest media upload (bytes)",
    description: "Uploads beyond this size are refused with 413.",
    group: "media",
    type: "integer",
    secret: false,
    options: [],
    check: integer(1, 5 * 1024 ** 3),
  },
  {
    key: "ai_base_url",
    label: "AI provider base URL",
    description: "OpenAI-compatible API used for publication builds and discovery.",
    group: "ai",
    type: "url",
    secret: false,
    options: [],
    check: (v) => httpUrl(v, { pathAllowed: true }),
  },
  {
    key: "ai_model",
    label: "AI model",
    description: "Model name sent to the AI provider.",
    group: "ai",
    type: "string",
    secret: false,
    options: [],
    check: (v) => (/^[\w.:/@+-]{1,200}$/.test(v) ? null : "Letters, digits and . : / @ + - _ only, at most 200"),
  },
  {
    key: "ai_api_key",
    label: "AI provider API key",
    description: "Bearer key for the AI provider. Stored encrypted; never shown again.",
    group: "ai",
    type: "secret",
    secret: true,
    options: [],
    check: (v) => (/^[\x21-\x7e]{8,500}$/.test(v) ? null : "8 to 500 printable characters without spaces"),
  },
  {
    key: "billing_enabled",
    label: "Billing",
    description: "Turns plans and limits on. Off (self-hosted): every organization is on the unlimited `self_hosted` plan. Applies at once, without a restart.",
    group: "billing",
    live: true,
    type: "boolean",
    secret: false,
    options: BOOLEAN_OPTIONS,
    check: (v) => (v === "true" || v === "false" ? null : "Must be `true` or `false`"),
  },
  {
    key: "stripe_secret_key",
    label: "Stripe secret key",
    description: "Secret or restricted API key of the Stripe account. Stored encrypted; never shown again. Applies at once.",
    group: "billing",
    live: true,
    type: "secret",
    secret: true,
    options: [],
    check: prefixed(["sk_", "rk_"], "Stripe secret or restricted key"),
  },
  {
    key: "stripe_webhook_secret",
    label: "Stripe webhook signing secret",
    description: "Verifies POST /billing/webhooks/stripe. Stored encrypted; never shown again. Applies at once.",
    group: "billing",
    live: true,
    type: "secret",
    secret: true,
    options: [],
    check: prefixed(["whsec_"], "Stripe webhook signing secret"),
  },
  {
    key: "stripe_api_base",
    label: "Stripe API base URL",
    description:
      "Where Stripe's API is reached: only https://api.stripe.com (the default), so the secret key goes nowhere else; another origin only with ALLOW_PRIVATE_URLS=true (tests). Applies at once.",
    group: "billing",
    live: true,
    type: "url",
    secret: false,
    options: [],
    check: (v, ctx) => httpUrl(v, { pathAllowed: false }) ?? stripeOrigin(v, ctx),
  },
  ...(Object.keys(NETWORK_ORIGINS) as OAuthNetwork[]).flatMap(networkSettings),
];

export type SettingKey = (typeof SETTINGS)[number]["key"];

const BY_KEY = new Map(SETTINGS.map((s) => [s.key, s]));

export const findSetting = (key: string): SettingDefinition | undefined => BY_KEY.get(key);

/** The environment variable that sets a key (and wins over a saved value). */
export const envVarOf = (key: string) => key.toUpperCase();

/** Why this value is refused for this setting, or null. `""` always passes: it clears the saved value. */
export function checkValue(def: SettingDefinition, value: string, ctx: CheckContext = {}): string | null {
  if (value === "") return null;
  if (value.length > MAX_VALUE) return `At most ${MAX_VALUE} characters`;
  if (/[\u0000-\u001f\u007f]/.test(value)) return "Control characters are not allowed";
  if (value.trim() !== value) return "Leading or trailing spaces are not allowed";
  return def.check(value, ctx);
}

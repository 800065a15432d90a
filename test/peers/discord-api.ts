import http from "node:http";
import { listenOnLoopback } from "./loopback";

/**
 * A TEST DOUBLE of Discord's webhook API, written from Discord's developer documentation
 * (https://discord.com/developers/docs: resources/webhook "Get Webhook with Token", "Execute Webhook",
 * "Get Webhook Message"; reference "Uploading Files"; topics/rate-limits; topics/opcodes-and-status-codes).
 * Discord cannot run here, so this plain node:http server answers the calls Herald makes the way the
 * documentation says Discord does:
 *
 * - GET /api/webhooks/:id/:token → the webhook object (type 1, name, channel_id, guild_id, avatar; no user, as
 *   with a token); a wrong token → 401 `{message: "Invalid Webhook Token", code: 50027}`; an unknown or deleted
 *   webhook → 404 `{message: "Unknown Webhook", code: 10015}`.
 * - POST /api/webhooks/:id/:token[?wait=true][&thread_id=] as JSON or multipart/form-data (`payload_json` and
 *   `files[n]`, each matched to its `attachments[].id` for its `description`): `wait=true` answers 200 with the
 *   message object, otherwise 204 with no body. Nothing to send (no content and no file) → 400 code 50006;
 *   `content` over 2,000 characters (code points) → 400 `{code: 50035, message: "Invalid Form Body", errors:
 *   {content: {_errors: [{code: "BASE_TYPE_MAX_LENGTH"}]}}}`; more than 10 files → 400 50035 too.
 *   There is no idempotency key: the same request twice is two messages, as on Discord.
 * - GET /api/webhooks/:id/:token/messages/:message_id → the message, or 404 `{message: "Unknown Message", code: 10008}`.
 * - Rate limits: every answer carries X-RateLimit-Limit/Remaining/Reset/Reset-After/Bucket; a 429 carries
 *   Retry-After (whole seconds, rounded up), X-RateLimit-Reset (epoch seconds with decimals),
 *   X-RateLimit-Reset-After (seconds with decimals), X-RateLimit-Scope and the body `{message, retry_after, global}`.
 *
 * Faults: `rateLimitNext(resetAt)` answers the next execute with that 429; `failNext(n, status)` the next n
 * executes with a Discord error; `hangNext(n)` stores the next n messages and never answers (a client's timeout
 * then leaves the outcome unknown); `revokeToken(id)` makes the webhook's token invalid (401 from then on),
 * `deleteWebhook(id)` deletes it (404).
 */

export interface DiscordAttachment {
  id: string;
  filename: string;
  description: string | null;
  content_type: string;
  size: number;
  url: string;
  bytes: Uint8Array;
}

export interface DiscordMessage {
  id: string;
  webhookId: string;
  channel_id: string;
  content: string;
  timestamp: string;
  attachments: DiscordAttachment[];
  /** The body the message was sent with (the JSON params, or the multipart's payload_json). */
  payload: Record<string, unknown>;
  /** Whether the request was multipart/form-data. */
  multipart: boolean;
}

interface Webhook {
  id: string;
  token: string;
  name: string;
  channelId: string;
  guildId: string;
  revoked: boolean;
  deleted: boolean;
}

type Fault = { kind: "status"; status: number } | { kind: "rate"; resetAt: Date } | { kind: "hang" };

/** Discord ids are snowflakes: 64-bit integers as decimal strings, growing with time. */
let snowflake = 1_180_000_000_000_000_000n;
const nextId = () => String(snowflake++);

const codePoints = (s: string) => [...s].length;

export async function startDiscord() {
  const webhooks = new Map<string, Webhook>();
  const messages: DiscordMessage[] = [];
  const faults: Fault[] = [];
  /** Every execute request received, in order, whatever it was answered. */
  const executes: { webhookId: string; answered: number }[] = [];
  let url = "";

  const rateHeaders = (remaining: number, resetAfter: number): Record<string, string> => ({
    "x-ratelimit-limit": "5",
    "x-ratelimit-remaining": String(remaining),
    "x-ratelimit-reset": ((Date.now() + resetAfter * 1000) / 1000).toFixed(3),
    "x-ratelimit-reset-after": resetAfter.toFixed(3),
    "x-ratelimit-bucket": "5e2a0c1b8d4f7a3e9b6c1d2e3f4a5b6c",
  });

  const publicMessage = (m: DiscordMessage, hook: Webhook) => ({
    id: m.id,
    type: 0,
    content: m.content,
    channel_id: m.channel_id,
    author: { id: hook.id, username: hook.name, avatar: null, discriminator: "0000", bot: true },
    attachments: m.attachments.map(({ bytes: _b, ...a }) => ({ ...a, proxy_url: a.url })),
    embeds: [],
    mentions: [],
    mention_roles: [],
    pinned: false,
    mention_everyone: false,
    tts: false,
    timestamp: m.timestamp,
    edited_timestamp: null,
    flags: 0,
    components: [],
    webhook_id: hook.id,
  });

  async function readBody(req: http.IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** The JSON params and files of an execute request, JSON or multipart (parsed by the platform's own fetch Request). */
  async function paramsOf(req: http.IncomingMessage, raw: Buffer) {
    const type = String(req.headers["content-type"] ?? "");
    if (type.startsWith("multipart/form-data")) {
      const form = await new Request("http://discord.test/", { method: "POST", headers: { "content-type": type }, body: new Uint8Array(raw) }).formData();
      const payload = JSON.parse(String(form.get("payload_json") ?? "{}")) as Record<string, unknown>;
      const files: { n: number; file: File }[] = [];
      for (const [name, value] of form.entries()) {
        const m = /^files\[(\d+)\]$/.exec(name);
        if (m && typeof value !== "string") files.push({ n: Number(m[1]), file: value });
      }
      return { payload, files, multipart: true };
    }
    return { payload: JSON.parse(raw.toString("utf8") || "{}") as Record<string, unknown>, files: [], multipart: false };
  }

  const server = http.createServer(async (req, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...rateHeaders(4, 1), ...headers });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    const target = new URL(req.url ?? "/", url);
    const raw = await readBody(req);
    const m = /^\/api(?:\/v\d+)?\/webhooks\/(\d+)\/([^/]+)(?:\/messages\/(\d+))?\/?$/.exec(target.pathname);
    if (!m) return send(404, { message: "404: Not Found", code: 0 });
    const hook = webhooks.get(m[1]);
    if (!hook || hook.deleted) return send(404, { message: "Unknown Webhook", code: 10015 });
    if (hook.revoked || hook.token !== m[2]) return send(401, { message: "Invalid Webhook Token", code: 50027 });

    if (req.method === "GET" && !m[3]) {
      return send(200, {
        application_id: null,
        avatar: null,
        channel_id: hook.channelId,
        guild_id: hook.guildId,
        id: hook.id,
        name: hook.name,
        type: 1,
        token: hook.token,
      });
    }
    if (req.method === "GET" && m[3]) {
      const found = messages.find((x) => x.id === m[3] && x.webhookId === hook.id);
      return found ? send(200, publicMessage(found, hook)) : send(404, { message: "Unknown Message", code: 10008 });
    }
    if (req.method !== "POST" || m[3]) return send(405, { message: "405: Method Not Allowed", code: 0 });

    const attempt = { webhookId: hook.id, answered: 0 };
    executes.push(attempt);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      attempt.answered = status;
      send(status, body, headers);
    };
    const fault = faults.shift();
    if (fault?.kind === "status") return answer(fault.status, { message: fault.status >= 500 ? "500: Internal Server Error" : "Failing on purpose", code: 0 });
    if (fault?.kind === "rate") {
      const after = Math.max(0, (fault.resetAt.getTime() - Date.now()) / 1000);
      return answer(
        429,
        { message: "You are being rate limited.", retry_after: Number(after.toFixed(3)), global: false },
        { ...rateHeaders(0, after), "retry-after": String(Math.ceil(after)), "x-ratelimit-scope": "user" },
      );
    }
    let params: Awaited<ReturnType<typeof paramsOf>>;
    try {
      params = await paramsOf(req, raw);
    } catch {
      return answer(400, { message: "Cannot send an empty message", code: 50006 });
    }
    const content = typeof params.payload.content === "string" ? params.payload.content : "";
    if (!content && params.files.length === 0) return answer(400, { message: "Cannot send an empty message", code: 50006 });
    if (codePoints(content) > 2000) {
      return answer(400, {
        message: "Invalid Form Body",
        code: 50035,
        errors: { content: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." }] } },
      });
    }
    if (params.files.length > 10) {
      return answer(400, {
        message: "Invalid Form Body",
        code: 50035,
        errors: { files: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 10 or fewer in length." }] } },
      });
    }
    const declared = Array.isArray(params.payload.attachments)
      ? (params.payload.attachments as { id?: unknown; description?: unknown; filename?: unknown }[])
      : [];
    const attachments: DiscordAttachment[] = [];
    for (const { n, file } of params.files.sort((a, b) => a.n - b.n)) {
      const meta = declared.find((d) => String(d.id) === String(n));
      const id = nextId();
      const filename = typeof meta?.filename === "string" ? meta.filename : file.name;
      attachments.push({
        id,
        filename,
        description: typeof meta?.description === "string" ? meta.description : null,
        content_type: file.type,
        size: file.size,
        url: `https://cdn.discordapp.com/attachments/${hook.channelId}/${id}/${filename}`,
        bytes: new Uint8Array(await file.arrayBuffer()),
      });
    }
    const message: DiscordMessage = {
      id: nextId(),
      webhookId: hook.id,
      channel_id: target.searchParams.get("thread_id") ?? hook.channelId,
      content,
      timestamp: new Date().toISOString(),
      attachments,
      payload: params.payload,
      multipart: params.multipart,
    };
    messages.push(message);
    if (fault?.kind === "hang") return; // stored; the answer never comes
    if (target.searchParams.get("wait") === "true") return answer(200, publicMessage(message, hook));
    attempt.answered = 204;
    res.writeHead(204, rateHeaders(4, 1));
    res.end();
  });
  const listening = await listenOnLoopback(server);
  url = `${listening.url}`;

  return {
    url,
    messages,
    executes,
    /** A new incoming webhook on a new channel; `url` is what a person pastes into Herald. */
    addWebhook(name = "Herald announcements") {
      const hook: Webhook = {
        id: nextId(),
        token: `${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}-token_${"x".repeat(40)}`.slice(0, 68),
        name,
        channelId: nextId(),
        guildId: nextId(),
        revoked: false,
        deleted: false,
      };
      webhooks.set(hook.id, hook);
      return { id: hook.id, token: hook.token, channelId: hook.channelId, guildId: hook.guildId, url: `${url}/api/webhooks/${hook.id}/${hook.token}` };
    },
    messagesOf: (webhookId: string) => messages.filter((x) => x.webhookId === webhookId),
    revokeToken(webhookId: string) {
      webhooks.get(webhookId)!.revoked = true;
    },
    deleteWebhook(webhookId: string) {
      webhooks.get(webhookId)!.deleted = true;
    },
    rateLimitNext(resetAt: Date) {
      faults.push({ kind: "rate", resetAt });
    },
    failNext(n: number, status: number) {
      for (let i = 0; i < n; i++) faults.push({ kind: "status", status });
    },
    hangNext(n: number) {
      for (let i = 0; i < n; i++) faults.push({ kind: "hang" });
    },
    async stop() {
      await listening.stop();
    },
  };
}

export type DiscordPeer = Awaited<ReturnType<typeof startDiscord>>;

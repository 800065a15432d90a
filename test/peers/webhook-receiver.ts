import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import { listenOnLoopback } from "./loopback";

/**
 * A webhook receiver as a careful integrator would write one, for tests: it verifies Standard Webhooks
 * signatures (https://www.standardwebhooks.com/) independently of Herald's code (node:crypto here,
 * WebCrypto there), records every attempt, drops duplicates by `webhook-id`, answers `{id, url}`, and can
 * fail on purpose: `failNext(n, status)` (500 twice then 200, a 400, a 429 with Retry-After) or
 * `hangNext(n)` (accepts the delivery, then never answers).
 */

export interface Delivery {
  webhookId: string;
  timestamp: string;
  signature: string | null;
  signatureValid: boolean | null;
  body: any;
  raw: string;
  /** What this attempt was answered with (0 when it hung). */
  answeredWith: number;
  duplicate: boolean;
}

/** The key bytes of a Standard Webhooks secret: `whsec_<base64>` decoded, any other secret as UTF-8. */
function keyOf(secret: string): Buffer {
  return secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8");
}

/** True when one of the space-separated `v1,<sig>` entries matches HMAC-SHA256(id.timestamp.body). */
export function verifySignature(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  const expected = createHmac("sha256", keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest();
  return header.split(" ").some((entry) => {
    const [version, sig] = entry.split(",");
    if (version !== "v1" || !sig) return false;
    const given = Buffer.from(sig, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export async function startWebhookReceiver(opts: { secret?: string } = {}) {
  const attempts: Delivery[] = [];
  const accepted = new Map<string, Delivery>();
  const faults: { status: number; retryAfter?: number; hang?: boolean }[] = [];
  let url = "";

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const webhookId = String(req.headers["webhook-id"] ?? "");
    const timestamp = String(req.headers["webhook-timestamp"] ?? "");
    const signature = typeof req.headers["webhook-signature"] === "string" ? req.headers["webhook-signature"] : null;
    const signatureValid = opts.secret ? signature !== null && verifySignature(opts.secret, webhookId, timestamp, raw, signature) : null;
    let body: any = null;
    try {
      body = JSON.parse(raw);
    } catch {}
    const attempt: Delivery = { webhookId, timestamp, signature, signatureValid, body, raw, answeredWith: 0, duplicate: false };
    attempts.push(attempt);
    const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      attempt.answeredWith = status;
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(payload));
    };
    const fault = faults.shift();
    if (fault?.hang) {
      if (!accepted.has(webhookId)) accepted.set(webhookId, attempt);
      return; // took the delivery, never answers
    }
    if (fault) return answer(fault.status, { error: "failing on purpose" }, fault.retryAfter !== undefined ? { "retry-after": String(fault.retryAfter) } : {});
    if (opts.secret && !signatureValid) return answer(401, { error: "bad signature" });
    const first = accepted.get(webhookId);
    if (first) attempt.duplicate = true;
    else accepted.set(webhookId, attempt);
    const id = `rcv_${webhookId.slice(-12)}`;
    answer(200, { id, url: `${url}/posts/${id}` });
  });
  const listening = await listenOnLoopback(server);
  url = `${listening.url}/hook`;

  return {
    url,
    /** Every request received, in order, including failed and duplicate ones. */
    attempts,
    /** Deliveries accepted once each (duplicates by webhook-id dropped). */
    get deliveries() {
      return [...accepted.values()];
    },
    failNext(n: number, status: number, o: { retryAfter?: number } = {}) {
      for (let i = 0; i < n; i++) faults.push({ status, ...o });
    },
    hangNext(n: number) {
      for (let i = 0; i < n; i++) faults.push({ status: 0, hang: true });
    },
    async stop() {
      await listening.stop();
    },
  };
}

export type WebhookPeer = Awaited<ReturnType<typeof startWebhookReceiver>>;

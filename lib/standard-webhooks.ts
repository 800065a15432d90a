/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com/, CONTRACT.md §4 and §6), shared by the webhook
 * provider (lib/platforms/webhook/adapter.ts) and outbound events (lib/events/). Web Crypto only: Workers and Node alike.
 */

const encoder = new TextEncoder();

/** `whsec_<base64>` secrets are keyed by their decoded bytes, any other secret by its UTF-8 bytes. */
export function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (secret.startsWith("whsec_")) {
    try {
      const raw = atob(secret.slice("whsec_".length));
      return Uint8Array.from(raw, (ch) => ch.charCodeAt(0));
    } catch {
      // Not valid base64 after all: fall back to the text itself.
    }
  }
  return encoder.encode(secret);
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export async function sign(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", secretBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(`${id}.${timestamp}.${body}`)));
  return `v1,${btoa(String.fromCharCode(...mac))}`;
}

/**
 * The headers of one signed request: the id is the same on every retry (receivers drop duplicates by it), the
 * timestamp is this attempt's; no signature without a secret.
 */
export async function standardWebhookHeaders(id: string, body: string, secret: string | undefined, timestamp = Math.floor(Date.now() / 1000)) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "Herald-Webhooks/1",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
  };
  if (secret) headers["webhook-signature"] = await sign(secret, id, timestamp, body);
  return headers;
}

/** A new `whsec_` secret: 32 random bytes, base64. */
export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

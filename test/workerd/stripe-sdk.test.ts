import { describe, expect, it } from "vitest";
import { stripeClient, verifiedEvent } from "../../lib/billing/stripe-client";

/** Stripe's SDK as Herald uses it, inside workerd: Web Crypto for webhook signatures, its fetch HTTP client. */
describe("Stripe's SDK inside workerd", () => {
  const secret = "whsec_workerdTestSecret";
  const sign = async (payload: string, at: number) => {
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${at}.${payload}`)));
    return `t=${at},v1=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
  };

  it("verifies a webhook signature with constructEventAsync (Web Crypto) and refuses a forged one", async () => {
    expect(navigator.userAgent).toBe("Cloudflare-Workers");
    const now = Math.floor(Date.now() / 1000);
    const payload = JSON.stringify({ id: "evt_workerd", object: "event", type: "ping", created: now, data: { object: { id: "x" } } });
    expect((await verifiedEvent(payload, await sign(payload, now), secret))?.id).toBe("evt_workerd");
    expect(await verifiedEvent(`${payload} `, await sign(payload, now), secret)).toBeNull();
  });

  it("makes a client with the fetch HTTP client: a host that refuses the connection rejects with StripeConnectionError after the retries", async () => {
    const client = await stripeClient({ secretKey: "sk_test_workerd", apiBase: "http://127.0.0.1:9", webhookSecret: undefined });
    await expect(client.subscriptions.retrieve("sub_x")).rejects.toMatchObject({ type: "StripeConnectionError" });
  });
});

import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for Stripe's API (not Stripe; Stripe cannot run here), written from Stripe's API reference and driven
 * by Herald through Stripe's own SDK with its base URL pointed here. It answers what Herald uses:
 *
 * - `POST /v1/checkout/sessions` (form-encoded, nested keys as `a[b][0][c]`), `GET /v1/checkout/sessions/{id}`;
 * - `GET /v1/subscriptions/{id}`, `POST /v1/subscriptions/{id}` (`cancel_at_period_end`), `DELETE /v1/subscriptions/{id}`;
 * - `POST /v1/billing_portal/sessions` (`customer`, `return_url`).
 *
 * Every request needs `Authorization: Bearer <secret key>`. An `Idempotency-Key` replays the first answer for the same
 * parameters and refuses other parameters (400 `idempotency_error`), as Stripe does. Subscriptions carry their periods
 * on their items (API versions since 2025-03-31). What happens on Stripe's side (a customer paying, a renewal) is
 * driven by the test through `complete` and `update`, which return the events Stripe would send; `sign` signs an
 * event's payload as Stripe documents (`Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<payload>">`, keyed by
 * the whole `whsec_…` string). Event `created` times come from a clock that moves one second per event, so the
 * order Stripe made them in is known; `tick(0)` keeps two events in the same second.
 */
export type StripeObject = Record<string, unknown> & { id: string };

export type StripeEvent = {
  id: string;
  object: "event";
  type: string;
  created: number;
  api_version: string;
  data: { object: StripeObject };
};

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  params: Record<string, unknown>;
}

export interface StripeStandIn {
  url: string;
  secretKey: string;
  webhookSecret: string;
  requests: RecordedRequest[];
  sessions: Map<string, StripeObject>;
  subscriptions: Map<string, StripeObject>;
  /** Answer the next N requests with 500 (Stripe's `api_error`). */
  failNext: number;
  /** The customer pays a session: a customer and an active subscription are made; the events Stripe sends, in order. */
  complete(sessionId: string, opts?: { status?: string }): StripeEvent[];
  /** Something changes a subscription on Stripe's side (a renewal, a failed payment): the `updated` event. */
  update(subscriptionId: string, changes: Record<string, unknown>): StripeEvent;
  /** The events made so far, in the order Stripe made them. */
  events: StripeEvent[];
  /** Moves the event clock by `seconds` before the next event (0: the next event shares this second). */
  tick(seconds: number): void;
  sign(payload: string, at?: number): string;
  stop(): Promise<void>;
}

const MONTH_S = 30 * 24 * 3600;

/** Stripe's form encoding read back into nested objects and arrays. */
export function parseForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const keys = name.split("[").map((k) => k.replace(/]$/, ""));
    let node: Record<string, unknown> = out;
    keys.forEach((key, i) => {
      if (i === keys.length - 1) node[key] = value;
      else {
        node[key] ??= /^\d+$/.test(keys[i + 1]) ? [] : {};
        node = node[key] as Record<string, unknown>;
      }
    });
  }
  return out;
}

const randomId = (prefix: string) => `${prefix}_${crypto.randomBytes(9).toString("hex")}`;

export async function startStripeStandIn(opts: { apiVersion: string }): Promise<StripeStandIn> {
  const secretKey = "sk_test_heraldStandIn0001";
  const webhookSecret = "whsec_heraldStandInSecret";
  let clock = Math.floor(Date.now() / 1000);
  let step = 1;
  const idempotent = new Map<string, { params: string; status: number; body: unknown }>();

  const peer = {
    secretKey,
    webhookSecret,
    requests: [] as RecordedRequest[],
    sessions: new Map<string, StripeObject>(),
    subscriptions: new Map<string, StripeObject>(),
    events: [] as StripeEvent[],
    failNext: 0,
  } as StripeStandIn;

  const event = (type: string, object: StripeObject): StripeEvent => {
    clock += step;
    step = 1;
    const e: StripeEvent = {
      id: randomId("evt"),
      object: "event",
      type,
      created: clock,
      api_version: opts.apiVersion,
      data: { object: structuredClone(object) },
    };
    peer.events.push(e);
    return e;
  };
  peer.tick = (seconds) => {
    clock += seconds;
    step = seconds === 0 ? 0 : 1;
  };
  peer.sign = (payload, at = Math.floor(Date.now() / 1000)) =>
    `t=${at},v1=${crypto.createHmac("sha256", webhookSecret).update(`${at}.${payload}`).digest("hex")}`;

  peer.complete = (sessionId, o = {}) => {
    const session = peer.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    const customer = randomId("cus");
    const now = clock;
    const line = (session.line_items as { price_data?: { recurring?: { interval?: string } } }[] | undefined)?.[0];
    const length = line?.price_data?.recurring?.interval === "year" ? 12 * MONTH_S : MONTH_S;
    const subscription: StripeObject = {
      id: randomId("sub"),
      object: "subscription",
      customer,
      status: o.status ?? "active",
      cancel_at_period_end: false,
      canceled_at: null,
      trial_end: null,
      created: now,
      metadata: (session.subscription_data as { metadata?: unknown } | undefined)?.metadata ?? {},
      items: { object: "list", data: [{ id: randomId("si"), object: "subscription_item", current_period_start: now, current_period_end: now + length }] },
    };
    peer.subscriptions.set(subscription.id, subscription);
    Object.assign(session, { status: "complete", payment_status: "paid", customer, subscription: subscription.id });
    return [event("customer.subscription.created", subscription), event("checkout.session.completed", session)];
  };

  peer.update = (subscriptionId, changes) => {
    const sub = peer.subscriptions.get(subscriptionId);
    if (!sub) throw new Error(`no subscription ${subscriptionId}`);
    Object.assign(sub, changes);
    return event(sub.status === "canceled" ? "customer.subscription.deleted" : "customer.subscription.updated", sub);
  };

  const route = (method: string, path: string, params: Record<string, unknown>): [number, unknown] => {
    const notFound = (what: string): [number, unknown] => [
      404,
      { error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${what}` } },
    ];
    if (method === "POST" && path === "/v1/checkout/sessions") {
      const id = randomId("cs_test");
      const session: StripeObject = {
        id,
        object: "checkout.session",
        mode: params.mode,
        status: "open",
        payment_status: "unpaid",
        client_reference_id: params.client_reference_id ?? null,
        customer: params.customer ?? null,
        customer_email: params.customer_email ?? null,
        subscription: null,
        metadata: params.metadata ?? {},
        success_url: params.success_url,
        cancel_url: params.cancel_url,
        url: `https://checkout.stripe.com/c/pay/${id}`,
        expires_at: clock + 24 * 3600,
        line_items: params.line_items,
        subscription_data: params.subscription_data,
      };
      peer.sessions.set(id, session);
      return [200, session];
    }
    let m = /^\/v1\/checkout\/sessions\/([\w-]+)$/.exec(path);
    if (m && method === "GET") return peer.sessions.has(m[1]) ? [200, peer.sessions.get(m[1])] : notFound("checkout.session");
    m = /^\/v1\/subscriptions\/([\w-]+)$/.exec(path);
    if (m) {
      const sub = peer.subscriptions.get(m[1]);
      if (!sub) return notFound("subscription");
      if (method === "GET") return [200, sub];
      if (method === "POST") {
        if (sub.status === "canceled")
          return [400, { error: { type: "invalid_request_error", message: "A canceled subscription can only update its cancellation_details and metadata." } }];
        if (params.cancel_at_period_end !== undefined) peer.update(sub.id, { cancel_at_period_end: params.cancel_at_period_end === "true" });
        return [200, sub];
      }
      if (method === "DELETE") {
        peer.update(sub.id, { status: "canceled", canceled_at: clock });
        return [200, sub];
      }
    }
    if (method === "POST" && path === "/v1/billing_portal/sessions") {
      if (typeof params.customer !== "string" || ![...peer.subscriptions.values()].some((s) => s.customer === params.customer)) return notFound("customer");
      const id = randomId("bps");
      return [
        200,
        {
          id,
          object: "billing_portal.session",
          customer: params.customer,
          return_url: params.return_url ?? null,
          url: `https://billing.stripe.com/p/session/${id}`,
        },
      ];
    }
    return [404, { error: { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path})` } }];
  };

  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://stand-in");
      const params = parseForm(req.method === "GET" || req.method === "DELETE" ? url.searchParams.toString() : raw);
      peer.requests.push({ method: req.method ?? "", path: url.pathname, headers: req.headers, params });
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json", "request-id": randomId("req") });
        res.end(JSON.stringify(body));
      };
      if (peer.failNext > 0) {
        peer.failNext--;
        return reply(500, { error: { type: "api_error", message: "Something went wrong on Stripe's end." } });
      }
      if (req.headers.authorization !== `Bearer ${secretKey}`)
        return reply(401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });
      const key = req.headers["idempotency-key"];
      if (typeof key === "string" && req.method === "POST") {
        const seen = idempotent.get(key);
        if (seen && seen.params !== raw)
          return reply(400, {
            error: { type: "idempotency_error", message: "Keys for idempotent requests can only be used with the same parameters they were first used with." },
          });
        if (seen) return reply(seen.status, seen.body);
        const [status, body] = route(req.method, url.pathname, params);
        idempotent.set(key, { params: raw, status, body: structuredClone(body) });
        return reply(status, body);
      }
      const [status, body] = route(req.method ?? "GET", url.pathname, params);
      reply(status, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  peer.stop = () => new Promise<void>((r) => server.close(() => r()));
  return peer;
}

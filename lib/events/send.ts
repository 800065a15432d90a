import { checkOutboundUrl } from "../net/outbound-url";
import { checkResolvedHost, defaultResolver, type Resolver } from "../net/resolve";
import { standardWebhookHeaders } from "../standard-webhooks";
import { classifyAnswer, SEND_TIMEOUT_MS, type AttemptResult } from "./rules";

/**
 * One signed POST of an event to an endpoint (Standard Webhooks; the event id is the `webhook-id`). The outbound
 * URL rules of webhook accounts apply at each send (CONTRACT §6: no private address unless ALLOW_PRIVATE_URLS, the
 * name resolved just before), no redirect is followed, and the answer's body is never read.
 */
export async function sendEvent(
  url: string,
  secret: string,
  eventId: string,
  body: string,
  opts: { allowPrivateUrls: boolean; resolve?: Resolver; timeoutMs?: number },
): Promise<AttemptResult> {
  const verdict = checkOutboundUrl(url, opts.allowPrivateUrls);
  if (!verdict.ok) return { ok: false, statusCode: null, errorCode: "url_refused", retryable: false };
  if (!opts.allowPrivateUrls) {
    const host = await checkResolvedHost(verdict.url!.hostname, opts.resolve ?? defaultResolver());
    // A name that does not resolve now may later: nothing was sent, so it is retried.
    if (!host.ok) return { ok: false, statusCode: null, errorCode: host.code, retryable: host.code !== "url_refused" };
  }
  const headers = await standardWebhookHeaders(eventId, body, secret);
  try {
    const res = await fetch(verdict.url!, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(opts.timeoutMs ?? SEND_TIMEOUT_MS),
    });
    await res.body?.cancel();
    return classifyAnswer(res.status);
  } catch (err) {
    const name = (err as Error)?.name;
    const errorCode = name === "TimeoutError" || name === "AbortError" ? "timeout" : "network_error";
    return { ok: false, statusCode: null, errorCode, retryable: true };
  }
}

import type { Platform } from "../../db/schema/accounts";
import { PROVIDERS } from "../../lib/accounts/catalog";
import { ApiError } from "../../lib/http/errors";
import { ProviderError } from "../../lib/providers/types";

/**
 * A provider failure as this API's problem: the provider refused the credentials or the request → 422
 * (the user must change something); rate-limited → 429; unreachable or timing out → 503; any other
 * provider error → 502. Anything that is not a ProviderError is rethrown (a bug, not the provider's).
 */
export function providerProblem(err: unknown, platform: string, credentialField?: string): never {
  if (!(err instanceof ProviderError)) throw err;
  const { kind, httpStatus, retryAt } = err.info;
  const name =
    platform === "webhook"
      ? "The webhook receiver"
      : platform === "mastodon"
        ? "The Mastodon server"
        : (PROVIDERS[platform as Platform]?.display_name ?? platform);
  const retryAfter = retryAt ? { "retry-after": String(Math.max(1, Math.ceil((retryAt.getTime() - Date.now()) / 1000))) } : undefined;
  switch (kind) {
    case "authentication":
      throw new ApiError("validation-error", {
        detail: `${name} refused these credentials${httpStatus ? ` (HTTP ${httpStatus})` : ""}. Check them (a revoked or mistyped ${credentialField ?? "credential"}?) and connect again.`,
        errors: credentialField ? [{ location: `body.${credentialField}`, message: "Refused by the provider" }] : undefined,
      });
    case "validation":
    case "configuration":
      throw new ApiError("validation-error", { detail: `${name} could not be used: ${err.message}` });
    case "rate_limited":
      throw new ApiError("rate-limited", { detail: `${name} is rate-limiting requests; try again later.`, headers: retryAfter ?? { "retry-after": "60" } });
    case "network":
      throw new ApiError("service-unavailable", { detail: `${name} could not be reached: ${err.message}`, headers: { "retry-after": "30" } });
    default:
      if (httpStatus === 503)
        throw new ApiError("service-unavailable", { detail: `${name} is unavailable (HTTP 503).`, headers: retryAfter ?? { "retry-after": "30" } });
      throw new ApiError("bad-gateway", { detail: `${name} answered with an error: ${err.message}` });
  }
}

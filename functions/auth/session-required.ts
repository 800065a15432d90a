import { currentUser, type AppContext } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";

/**
 * CONTRACT §9: a bearer token may register a person's first passkey, any further one only a browser session.
 * Otherwise a token could mint passkeys, and so sessions, making "browser session only" (the audit listing)
 * no stronger than a token.
 */
export function requireSessionForAnother(c: AppContext, passkeysHeld: number): void {
  if (passkeysHeld > 0 && !currentUser(c).sessionId)
    throw new ApiError("session-required", {
      detail: "You already have a passkey: sign in with it at /account/security and add another from that browser session.",
    });
}

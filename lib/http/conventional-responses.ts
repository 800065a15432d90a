type Operation = { parameters?: { in: string }[]; requestBody?: unknown; responses?: Record<string, unknown>; security?: unknown[] };
type Document = { paths?: object };

const problem = (description: string) => ({ description, content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } });

/**
 * The statuses the shared middleware (lib/http/app.ts) can answer for any operation, added to every
 * operation's OpenAPI entry so that each status a client can meet is documented once, where it arises:
 * 401 and 429 from authentication and the rate limit, 403 for a cookie-carried change from another origin; 422 for a NUL character anywhere in the URL (and
 * validation); 400 and 413 for unreadable or oversized bodies on methods that take one; 400 for a path
 * parameter that is not valid percent-encoding. A route's own entries (with their descriptions) win.
 */
export function addConventionalResponses(document: Document): void {
  for (const [path, methods] of Object.entries((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const [method, value] of Object.entries(methods)) {
      const op = value as Operation;
      if (!op || typeof op !== "object" || !op.responses) continue;
      const add = (status: number, description: string) => {
        op.responses![String(status)] ??= problem(description);
      };
      // `security: []` is what a public operation declares (lib/http/operation.ts).
      if (op.security?.length !== 0) {
        add(401, "Missing, unknown or revoked bearer token (or an ended browser session)");
        add(429, "Too many requests this minute for this person, or for this client address (Retry-After says when to try again)");
        if (method !== "get" && method !== "head") add(403, "Carried by a session cookie without Herald's own Origin");
      }
      add(422, "Validation failed");
      if (method !== "get" && method !== "head") {
        add(400, "Body is not JSON or not the declared content type");
        add(413, "Request body too large");
      }
      if (path.includes("{")) add(400, "A path parameter is not valid percent-encoding");
    }
  }
}

/**
 * What domain code (lib/<domain>/) throws when a request cannot be done: it names one of the API's problem
 * types but knows nothing of HTTP, so lib/<domain>/ need not import lib/http/ (which imports the domains).
 * lib/http/problem-response.ts's handleError answers it as that problem, exactly as it answers an ApiError.
 * The slugs are the problem types domain code raises so far; handleError's ApiError checks each is one.
 */
export type DomainErrorSlug = "conflict" | "not-found";

export class DomainError extends Error {
  constructor(
    readonly slug: DomainErrorSlug,
    /** The problem's `detail`: what went wrong, for the caller. */
    readonly detail: string,
  ) {
    super(detail);
    this.name = "DomainError";
  }
}

/**
 * What domain code (lib/<domain>/) throws when a request cannot be done: it names one of the API's problem
 * types but knows nothing of HTTP, so lib/<domain>/ need not import lib/http/ (which imports the domains).
 * lib/http/problem-response.ts's handleError answers it as that problem, exactly as it answers an ApiError.
 * The slugs are the problem types domain code raises so far; handleError's ApiError checks each is one.
 */
export type DomainErrorSlug =
  | "bad-gateway"
  | "conflict"
  | "forbidden"
  | "not-editable"
  | "not-found"
  | "not-implemented"
  | "plan-limit-reached"
  | "provider-not-configured"
  | "revision-conflict"
  | "validation-error";

/** One field a validation-error names: where in the request (`body.media_ids[2]`), what is wrong, the value. */
export interface FieldError {
  location: string;
  message: string;
  value?: unknown;
}

export interface DomainErrorOptions {
  /** The fields a validation-error names (the problem's `errors`). */
  errors?: FieldError[];
  /** Further members of the problem, e.g. revision-conflict's `current_revision`. */
  extra?: Record<string, unknown>;
}

export class DomainError extends Error {
  constructor(
    readonly slug: DomainErrorSlug,
    /** The problem's `detail`: what went wrong, for the caller. */
    readonly detail: string,
    readonly options: DomainErrorOptions = {},
  ) {
    super(detail);
    this.name = "DomainError";
  }
}

/** 404 in the words every operation uses: a thing of another workspace is as absent as one that never was. */
export const notFound = (what = "resource") => new DomainError("not-found", `No such ${what}, or it is not visible to you.`);

/** A validation-error naming each field, its detail the fields' messages in one line. */
export const invalidFields = (errors: FieldError[]) =>
  new DomainError("validation-error", errors.map((e) => `${e.location}: ${e.message}`).join("; "), { errors });

/**
 * Optimistic concurrency (CONTRACT.md §2): the caller names the revision it loaded. The update that
 * follows must also filter on it (`WHERE revision = expected`) so that of concurrent writers only one wins.
 */
export function assertRevision(expected: number, current: number, what = "resource"): void {
  if (expected !== current) throw revisionConflict(current, what);
}

export function revisionConflict(current: number, what = "resource"): DomainError {
  return new DomainError("revision-conflict", `The ${what} is at revision ${current}; reload it and apply your change again.`, {
    extra: { current_revision: current },
  });
}

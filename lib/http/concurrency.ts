import { ApiError } from "./errors";

/**
 * Optimistic concurrency (CONTRACT.md §2): the caller names the revision it loaded. The update that
 * follows must also filter on it (`WHERE revision = expected`) so that of concurrent writers only one wins.
 */
export function assertRevision(expected: number, current: number, what = "resource"): void {
  if (expected !== current) throw revisionConflict(current, what);
}

export function revisionConflict(current: number, what = "resource"): ApiError {
  return new ApiError("revision-conflict", {
    detail: `The ${what} is at revision ${current}; reload it and apply your change again.`,
    extra: { current_revision: current },
  });
}

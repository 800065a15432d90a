import type { FieldError } from "../errors";
import { PROBLEMS, type ProblemSlug } from "./problems";

// Domain code raises these through lib/errors.ts; operations keep importing them from here.
export { type FieldError, notFound } from "../errors";

export interface ApiErrorOptions {
  detail?: string;
  errors?: FieldError[];
  /** Extra members of the problem body, e.g. `current_revision`. */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** Thrown anywhere in a request; the app's error handler turns it into application/problem+json. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly slug: ProblemSlug,
    readonly options: ApiErrorOptions = {},
  ) {
    super(options.detail ?? PROBLEMS[slug].title);
    this.status = PROBLEMS[slug].status;
  }
}

/**
 * A response already made, thrown from inside a handler to be sent as it is (by the app's error handler, as an
 * ApiError is): an idempotent replay (lib/http/idempotency.ts), whose stored body no route type describes.
 */
export class ReadyResponse extends Error {
  constructor(readonly response: Response) {
    super("ready response");
  }
}

export const notImplemented = (operation: string, issue: string) =>
  new ApiError("not-implemented", {
    detail: `${operation} is declared but not built yet (${issue}); nothing was changed.`,
  });

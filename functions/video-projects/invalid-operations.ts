import { ApiError } from "../../lib/http/errors";
import type { OperationError } from "../../lib/video/apply";

/** 422 naming each failing operation's field, e.g. `body.operations[2].path`. */
export function invalidOperations(errors: OperationError[], prefix = "body.operations", detail = "The operations do not apply to the document"): ApiError {
  const located = errors.map((e) => ({ location: e.index === null ? prefix : `${prefix}[${e.index}]${e.field ? `.${e.field}` : ""}`, message: e.message }));
  return new ApiError("validation-error", {
    detail: `${detail}: ${located.map((e) => `${e.location}: ${e.message}`).join("; ")}`.slice(0, 2000),
    errors: located,
  });
}

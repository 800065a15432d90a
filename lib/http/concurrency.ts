// Optimistic concurrency is a domain rule (lib/errors.ts); operations keep importing it from here.
export { assertRevision, revisionConflict } from "../errors";

import type { Role } from "../../db/schema";
import type { ScopedKind, ScopedRows } from "./scoped-resources";

/**
 * Where a workspace-scoped operation finds its workspace, read from the request after validation:
 * - a field of the query, the JSON body or the multipart form that is the workspace id;
 * - the path parameter that is the workspace id (`/workspaces/{id}`);
 * - a resource of the workspace named by a path parameter or a body field (`/publications/{id}`), loaded with
 *   the caller's role in one statement (lib/http/scoped-resources.ts).
 * `optional`: without the field, the operation needs only a signed-in caller.
 */
export type WorkspaceSource =
  | { in: "query" | "json" | "form" | "param"; field: string; optional?: boolean }
  | { resource: ScopedKind; in: "param" | "json"; field: string };

/**
 * Who may call an operation, declared beside its `createRoute` (lib/http/operation.ts registers both) and
 * enforced in one place: authentication (lib/http/auth.ts) for the credential, lib/http/enforce-access.ts
 * for the rest, after the request has validated. It is published on the operation as `x-herald-access`.
 */
export type Access =
  /** Anyone, without a credential: `reason` says why that is safe. */
  | { kind: "public"; reason: string }
  /** Any signed-in caller. */
  | { kind: "signed-in" }
  | { kind: "instance-admin" }
  /** An instance administrator in a browser session (passkey), never with a bearer token. */
  | { kind: "admin-session" }
  /**
   * A member of the workspace with `min` or a higher role: 404 to anyone else (existence is never revealed),
   * 403 below `min`. `readBesideAuth`: a list whose read is sent beside authentication (lib/http/scoped-read.ts).
   * `signedUrl`: a request without a credential whose URL carries `signature` goes to the route, which must
   * verify it (the media file, lib/media/signed-url.ts).
   */
  | { kind: "workspace-role"; min: Role; workspace: WorkspaceSource; readBesideAuth?: boolean; signedUrl?: boolean };

export const publicAccess = (reason: string): Access => ({ kind: "public", reason });
export const signedIn = (): Access => ({ kind: "signed-in" });
export const instanceAdmin = (): Access => ({ kind: "instance-admin" });
export const adminSession = (): Access => ({ kind: "admin-session" });
export const workspaceRole = (min: Role, workspace: WorkspaceSource, options: { readBesideAuth?: boolean; signedUrl?: boolean } = {}): Access => ({
  kind: "workspace-role",
  min,
  workspace,
  ...options,
});

/** The workspace is the query's `field` (default `workspace_id`). */
export const inQuery = (field = "workspace_id", options: { optional?: boolean } = {}): WorkspaceSource => ({ in: "query", field, ...options });
/** The workspace is the JSON body's `field` (default `workspace_id`). */
export const inBody = (field = "workspace_id"): WorkspaceSource => ({ in: "json", field });
/** The workspace is the multipart form's `field` (default `workspace_id`). */
export const inForm = (field = "workspace_id"): WorkspaceSource => ({ in: "form", field });
/** The path parameter `field` (default `id`) is the workspace's id. */
export const workspaceInPath = (field = "id"): WorkspaceSource => ({ in: "param", field });
/** The workspace is that of the `kind` resource the path parameter `field` (default `id`) names. */
export const resourceInPath = (kind: ScopedKind, field = "id"): WorkspaceSource => ({ resource: kind, in: "param", field });
/** The workspace is that of the `kind` resource the JSON body's `field` names. */
export const resourceInBody = (kind: ScopedKind, field: string): WorkspaceSource => ({ resource: kind, in: "json", field });

/** Whether the operation may be called without any credential (its OpenAPI `security` is then `[]`). */
export const isPublic = (access: Access) => access.kind === "public";

/** What enforcing a workspace rule established: the workspace, the caller's role there, and the resource it loaded. */
export interface Scope {
  workspaceId: string;
  role: Role;
  /** The resource named by the request (its kind's row), when the rule was scoped by one. */
  rows: Partial<ScopedRows>;
}

/**
 * SPEC.md part 4: the 21 operations, each with its success status and the response component it
 * returns (`array` when the body is a bare array of that component). Which are built is read from the
 * document itself (test/not-implemented.test.ts: a route that still declares 501 is not built).
 */
export interface SpecOperation {
  method: "get" | "post" | "put" | "patch" | "delete";
  path: string;
  status: 200 | 201 | 202;
  component: string;
  array?: boolean;
}

export const OPERATIONS: SpecOperation[] = [
  { method: "post", path: "/auth/security/passkeys/finish", status: 200, component: "SecurityStatus" },
  { method: "post", path: "/voice-profiles/{id}/default", status: 200, component: "VoiceProfile" },
  { method: "post", path: "/image-editor/designs/{id}/revisions/{revision_id}/restore", status: 200, component: "DesignResponse" },
  { method: "get", path: "/image-editor/templates", status: 200, component: "ListTemplatesOutputBody" },
  { method: "patch", path: "/image-editor/templates/{id}", status: 200, component: "TemplateResponse" },
  { method: "post", path: "/video-projects/{id}/mutations", status: 200, component: "VideoProjectMutationResponse" },
  { method: "get", path: "/publications", status: 200, component: "PublicationResponse", array: true },
  { method: "put", path: "/publications/{id}", status: 200, component: "PublicationResponse" },
  { method: "post", path: "/publications/{id}/publish-now", status: 202, component: "ActionOutputBody" },
  { method: "delete", path: "/publications/{id}", status: 200, component: "ActionOutputBody" },
  { method: "get", path: "/publication-builds/{id}", status: 200, component: "Build" },
  { method: "post", path: "/publication-opportunities/discover", status: 200, component: "DiscoveryResult" },
  { method: "get", path: "/analytics", status: 200, component: "Overview" },
  { method: "post", path: "/analytics/refresh", status: 202, component: "RefreshAnalyticsOutputBody" },
  { method: "get", path: "/accounts/providers", status: 200, component: "Provider", array: true },
  { method: "post", path: "/accounts/{account_id}/refresh-metadata", status: 200, component: "AccountResponse" },
  { method: "post", path: "/messages/refresh", status: 202, component: "RefreshCapabilityOutcome" },
  { method: "get", path: "/media", status: 200, component: "ListMediaOutputBody" },
  { method: "get", path: "/repost-automation", status: 200, component: "SettingsResponse" },
  { method: "get", path: "/billing/status", status: 200, component: "BillingStatusResponse" },
  { method: "put", path: "/admin/instance-settings", status: 200, component: "InstanceSettingsResponse" },
];

/** Response components that are top-level bodies: they carry `$schema` and are served as JSON Schema. */
export const TOP_LEVEL = [...new Set([...OPERATIONS.map((op) => op.component), "UserProfile", "MediaItem", "VideoProjectResponse", "TemplateResponse"])];

import type { GROUPS } from "./groups";

/**
 * The OpenAPI tags: one per operation group, the tag every operation of the group carries, with what the group is
 * for. Keyed by the groups' names, so a group added without its description fails tsc.
 */
const DESCRIPTIONS: Record<keyof typeof GROUPS, string> = {
  auth: "Who is calling: the profile, API tokens, passkeys and browser sessions.",
  workspaces: "Workspaces, their members, roles and invitations.",
  analytics: "Followers, engagement and top content per account and publication: the stored overview, collection runs and imports.",
  admin: "Instance administration: users, audit evidence, jobs and instance settings (instance administrators only).",
  "voice-profiles": "Voice profiles: how a workspace's content is written, used by publication builds.",
  "image-editor": "The image editor: designs with revisions, built-in and workspace templates, renders into the media library.",
  "video-projects": "Video projects: versioned batches of changes, with conflict branches and rebasing.",
  publications: "Publications: compose once, rendered per destination account; schedule, publish now, cancel, follow each delivery.",
  "publication-builds": "Publication builds (plans generated from sources, in a voice) and the discovery of content ideas.",
  accounts: "Connected social accounts on each network: connect (OAuth or credentials), reconnect, disconnect, their messages.",
  media: "The media library: upload, list and filter, temporary items, trash and restore.",
  "repost-automation": "Repost automation: rules, cross-workspace grants, the accounts they may use and what the evaluator did.",
  billing: "Billing: the plan, its limits and usage, purchase choices, checkout, portal, cancel and resume.",
  onboarding: "Onboarding: a new owner's first workspace and purchase.",
  mcp: "The Model Context Protocol endpoint: tools that call this API's operations with the caller's credential.",
  "webhook-endpoints": "Outbound events: webhook endpoints, their delivery logs and redelivery.",
};

export const API_TAGS: readonly { name: string; description: string }[] = Object.entries(DESCRIPTIONS).map(([name, description]) => ({
  name,
  description,
}));

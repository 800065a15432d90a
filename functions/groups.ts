import accounts from "./accounts";
import admin from "./admin";
import analytics from "./analytics";
import auth from "./auth";
import billing from "./billing";
import imageEditor from "./image-editor";
import mcp from "./mcp";
import media from "./media";
import onboarding from "./onboarding";
import publicationBuilds from "./publication-builds";
import publications from "./publications";
import repostAutomation from "./repost-automation";
import videoProjects from "./video-projects";
import voiceProfiles from "./voice-profiles";
import webhookEndpoints from "./webhook-endpoints";
import workspaces from "./workspaces";

/** Every operation group, by the name of its Worker (wrangler environment). */
export const GROUPS = {
  auth,
  workspaces,
  analytics,
  admin,
  "voice-profiles": voiceProfiles,
  "image-editor": imageEditor,
  "video-projects": videoProjects,
  publications,
  "publication-builds": publicationBuilds,
  accounts,
  media,
  "repost-automation": repostAutomation,
  billing,
  onboarding,
  mcp,
  "webhook-endpoints": webhookEndpoints,
} as const;

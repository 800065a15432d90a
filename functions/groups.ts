import admin from "./admin";
import analytics from "./analytics";
import auth from "./auth";
import workspaces from "./workspaces";

/** Every operation group, by the name of its Worker (wrangler environment). */
export const GROUPS = {
  auth,
  workspaces,
  analytics,
  admin,
} as const;

import { z } from "@hono/zod-openapi";
import { ROLES } from "../../db/schema";
import { responseObject } from "../../lib/http/schema-ref";

export const RoleEnum = z.enum(ROLES).openapi({ description: "owner > admin > editor > viewer" });

export const Workspace = responseObject("Workspace", {
  id: z.string().openapi({ example: "wsp_0123456789abcdefghijklmn" }),
  name: z.string(),
  role: RoleEnum.openapi({ description: "The caller's role in this workspace" }),
  created_at: z.string().datetime(),
});

export const WorkspaceMember = responseObject("WorkspaceMember", {
  workspace_id: z.string(),
  user_id: z.string(),
  role: RoleEnum,
  created_at: z.string().datetime(),
});

export const WorkspaceName = z.string().trim().min(1).max(200);

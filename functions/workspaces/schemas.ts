import { z } from "@hono/zod-openapi";
import { ROLES } from "../../db/schema";
import { responseObject } from "../../lib/http/schema-ref";

export const RoleEnum = z.enum(ROLES).openapi({ description: "owner > admin > editor > viewer" });

export const Workspace = responseObject("Workspace", {
  id: z.string().openapi({ example: "wsp_0123456789abcdefghijklmn" }),
  name: z.string(),
  role: RoleEnum.openapi({ description: "The caller's role in this workspace" }),
  revision: z.number().int().openapi({ description: "Grows by one on each change; send it back as expected_revision" }),
  created_at: z.string().datetime(),
  updated_at: z.string().datetime(),
});

export const WorkspaceMember = responseObject("WorkspaceMember", {
  workspace_id: z.string(),
  user_id: z.string(),
  role: RoleEnum,
  created_at: z.string().datetime(),
});

export const WorkspaceName = z.string().trim().min(1).max(200);

type WorkspaceRow = { id: string; name: string; revision: number; createdAt: Date; updatedAt: Date };

export const toWorkspace = (row: WorkspaceRow, role: (typeof RoleEnum)["options"][number]) => ({
  id: row.id,
  name: row.name,
  role,
  revision: row.revision,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

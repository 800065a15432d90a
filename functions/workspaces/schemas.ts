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

/** CONTRACT §9: a member as the team sees them; `email` only for an admin or owner asking. */
export const MemberFields = {
  workspace_id: z.string(),
  user_id: z.string(),
  display_name: z.string(),
  email: z.string().optional().openapi({ description: "Present when the caller is an admin or owner of the workspace" }),
  role: RoleEnum,
  created_at: z.string().datetime().openapi({ description: "When they joined the workspace" }),
};
export const Member = responseObject("Member", MemberFields);
/** The same shape nested inside other responses (no `$schema` of its own). */
export const MemberObject = z.object(MemberFields).openapi("MemberObject");

type MemberRow = { workspaceId: string; userId: string; displayName: string; email: string; role: (typeof RoleEnum)["options"][number]; createdAt: Date };

export const toMember = (row: MemberRow, withEmail: boolean) => ({
  workspace_id: row.workspaceId,
  user_id: row.userId,
  display_name: row.displayName,
  ...(withEmail ? { email: row.email } : {}),
  role: row.role,
  created_at: row.createdAt.toISOString(),
});

export const MemberPathParams = z.object({
  id: z.string().max(100).openapi({ description: "Workspace ID" }),
  user_id: z.string().min(1).max(100).openapi({ description: "The member's user ID" }),
});

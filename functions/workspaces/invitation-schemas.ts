import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { Timestamp } from "../../lib/schemas/common";
import { UserProfileObject } from "../auth/schemas";
import { MemberObject, RoleEnum } from "./schemas";

export const InvitationStatusEnum = z.enum(["pending", "accepted", "revoked", "expired"]);

/** CONTRACT §9: an invitation as its workspace's admins see it: never its token. */
export const Invitation = responseObject("Invitation", {
  id: z.string().openapi({ example: "inv_0123456789abcdefghijklmn" }),
  workspace_id: z.string(),
  email: z.string(),
  role: RoleEnum,
  status: InvitationStatusEnum,
  created_at: Timestamp,
  expires_at: Timestamp,
});

export const CreatedInvitation = responseObject("CreatedInvitation", {
  id: z.string(),
  workspace_id: z.string(),
  email: z.string(),
  role: RoleEnum,
  expires_at: Timestamp,
  token: z.string().openapi({ description: "What the invited person sends to POST /invitations/accept; shown only in this response" }),
});

/** A new person who accepted: their membership, their profile and their first API token (shown once). */
export const InvitationAcceptance = responseObject("InvitationAcceptance", {
  member: MemberObject,
  user: UserProfileObject,
  token: z.string().openapi({ description: "The new user's first API token; shown only in this response" }),
});

type Row = { id: string; workspaceId: string; email: string; role: z.infer<typeof RoleEnum>; createdAt: Date; expiresAt: Date };

export const toInvitation = (row: Row, status: z.infer<typeof InvitationStatusEnum>) => ({
  id: row.id,
  workspace_id: row.workspaceId,
  email: row.email,
  role: row.role,
  status,
  created_at: row.createdAt.toISOString(),
  expires_at: row.expiresAt.toISOString(),
});

import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { toUserProfile } from "../../lib/auth/profile";
import { publicAccess } from "../../lib/http/access";
import { optionalCaller } from "../../lib/http/auth";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { acceptAsNewPerson, acceptAsUser, claimInvitation } from "../../lib/workspaces/invitations";
import { InvitationAcceptance } from "./invitation-schemas";
import { Member, toMember } from "./schemas";

export const AcceptInvitationRequest = z
  .object({
    token: z.string().min(16).max(200).openapi({ description: "The invitation's token, from whoever invited you" }),
    display_name: z.string().trim().max(200).optional().openapi({ description: "Your name, when accepting as a new person" }),
  })
  .openapi("AcceptInvitationRequest");

const invalid = () => new ApiError("invalid-invitation", { detail: "This invitation is unknown, expired, revoked or already used; ask for a new one." });

export const route = createRoute({
  method: "post",
  path: "/invitations/accept",
  operationId: "acceptInvitation",
  tags: ["workspaces"],
  summary: "Accept an invitation to a workspace",
  description:
    "Signed in (a token or a session) as the person the invitation is for → 200 and you are a member. Not signed in, and no user has the invitation's e-mail address → 201: a new user, the membership and the new user's first API token (shown only here). Otherwise 403. An unknown, expired, revoked or used invitation → 422 invalid-invitation.",
  request: { body: jsonBody(AcceptInvitationRequest) },
  responses: {
    200: jsonResponse(Member, "You are now a member"),
    201: jsonResponse(InvitationAcceptance, "A new user, a member, with their first token"),
    ...problems(400, 401, 403, 409, 413, 422, 429),
  },
});

export const access = publicAccess("a person invited without an account has no credential yet; the invitation's single-use token is the credential");

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const caller = await optionalCaller(c);
  c.header("cache-control", "no-store");
  if (caller) {
    const member = await db(c).transaction(async (tx) => {
      const invitation = await claimInvitation(tx, body.token);
      if (!invitation) throw invalid();
      return acceptAsUser(tx, c.env, invitation, { ...auditActor(c), email: caller.email });
    });
    return c.json(withSchema(c, Member, toMember(member, true)), 200);
  }
  const accepted = await db(c).transaction(async (tx) => {
    const invitation = await claimInvitation(tx, body.token);
    if (!invitation) throw invalid();
    return acceptAsNewPerson(tx, c.env, invitation, { displayName: body.display_name, requestId: c.get("requestId") });
  });
  return c.json(
    withSchema(c, InvitationAcceptance, { member: toMember(accepted.member, true), user: toUserProfile(accepted.user), token: accepted.token }),
    201,
  );
};

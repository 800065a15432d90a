import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { audit } from "../../lib/audit";
import { createUser } from "../../lib/auth/users";
import { issueToken } from "../../lib/auth/tokens";
import { toUserProfile } from "../../lib/auth/profile";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { responseObject, withSchema } from "../../lib/http/schema-ref";
import { UserProfileObject } from "../auth/schemas";
import { instanceAdmin } from "../../lib/http/access";

export const CreateUserRequest = z
  .object({
    email: z.string().trim().email().max(254),
    display_name: z.string().trim().max(200).optional(),
    is_admin: z.boolean().optional(),
  })
  .openapi("CreateUserRequest");

export const CreatedUser = responseObject("CreatedUser", {
  user: UserProfileObject,
  token: z.string().openapi({ description: "A first API token for the new user; shown only here" }),
});

export const route = createRoute({
  method: "post",
  path: "/admin/users",
  operationId: "createUser",
  tags: ["admin"],
  summary: "Create a user (instance administrators)",
  description:
    "An instance administrator creates a person by e-mail address; the answer carries the new user and their first API token, shown this once (only its hash is kept). 409 when the address is taken.",
  request: { body: jsonBody(CreateUserRequest) },
  responses: { 201: jsonResponse(CreatedUser, "The user and a first token"), ...problems(400, 401, 403, 409, 413, 422) },
});

export const access = instanceAdmin();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const { user, token } = await db(c).transaction(async (tx) => {
    const user = await createUser(tx, { email: body.email, displayName: body.display_name ?? "", isAdmin: body.is_admin ?? false });
    const { token } = await issueToken(tx, user.id, "first token");
    await audit(tx, { ...auditActor(c), action: "user.create", targetType: "user", targetId: user.id });
    return { user, token };
  });
  return c.json(withSchema(c, CreatedUser, { user: toUserProfile(user), token }), 201);
};

import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { BoundedJsonMap, IdParam } from "../../lib/schemas/common";
import { SecurityStatus } from "./schemas";

const Base64Url = (max: number) => z.string().min(1).max(max).regex(/^[A-Za-z0-9_-]+={0,2}$/, "Expected base64url");

/**
 * SPEC.md 4.1 leaves the credential's structure unstated; Herald takes the WebAuthn
 * RegistrationResponseJSON that browsers produce (`PublicKeyCredential.toJSON()`). Other members are
 * dropped: verification reads only these.
 */
export const RegistrationCredential = z
  .object({
    id: Base64Url(2048),
    rawId: Base64Url(2048),
    type: z.literal("public-key"),
    response: z.object({
      clientDataJSON: Base64Url(16_384),
      attestationObject: Base64Url(65_536),
      authenticatorData: Base64Url(16_384).optional(),
      publicKey: Base64Url(16_384).optional(),
      publicKeyAlgorithm: z.number().int().optional(),
      transports: z.array(z.string().max(32)).max(10).optional(),
    }),
    authenticatorAttachment: z.string().max(32).optional(),
    clientExtensionResults: BoundedJsonMap(4096),
  })
  .openapi("RegistrationCredential", { description: "WebAuthn RegistrationResponseJSON from navigator.credentials.create()" });

export const FinishPasskeyRequest = z
  .object({
    challenge_id: IdParam.openapi({ description: "From POST /auth/security/passkeys/start" }),
    credential: RegistrationCredential,
    name: z.string().trim().min(1).max(100).optional().openapi({ description: "A label for the passkey, e.g. the device" }),
  })
  .openapi("FinishPasskeyRequest");

export const route = createRoute({
  method: "post",
  path: "/auth/security/passkeys/finish",
  tags: ["auth"],
  summary: "Finish passkey registration for the current user",
  description: "Verifies the browser's attestation against the single-use challenge (5 minutes) and stores the passkey.",
  request: { body: jsonBody(FinishPasskeyRequest) },
  responses: { 200: jsonResponse(SecurityStatus, "The caller's security status, with the new passkey"), ...problems(400, 401, 404, 413, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async () => {
  throw notImplemented("POST /auth/security/passkeys/finish", "a later issue");
};

import { z } from "@hono/zod-openapi";
import { BoundedJsonMap, IdParam } from "../../lib/schemas/common";

const Base64Url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, "Expected base64url");

/** What every PublicKeyCredential JSON carries around its `response`. */
const credentialOf = <R extends z.ZodRawShape>(response: R) =>
  z.object({
    id: Base64Url(2048),
    rawId: Base64Url(2048),
    type: z.literal("public-key"),
    response: z.object(response),
    authenticatorAttachment: z.string().max(32).optional(),
    clientExtensionResults: BoundedJsonMap(4096),
  });

/**
 * SPEC.md 4.1 leaves the credential's structure unstated; Herald takes the WebAuthn JSON that browsers
 * produce (`PublicKeyCredential.toJSON()`). Other members are dropped: verification reads only these.
 */
export const RegistrationCredential = credentialOf({
  clientDataJSON: Base64Url(16_384),
  attestationObject: Base64Url(65_536),
  authenticatorData: Base64Url(16_384).optional(),
  publicKey: Base64Url(16_384).optional(),
  publicKeyAlgorithm: z.number().int().optional(),
  transports: z.array(z.string().max(32)).max(10).optional(),
}).openapi("RegistrationCredential", { description: "WebAuthn RegistrationResponseJSON from navigator.credentials.create()" });

export const AuthenticationCredential = credentialOf({
  clientDataJSON: Base64Url(16_384),
  authenticatorData: Base64Url(16_384),
  signature: Base64Url(4096),
  userHandle: Base64Url(256).optional(),
}).openapi("AuthenticationCredential", { description: "WebAuthn AuthenticationResponseJSON from navigator.credentials.get()" });

export const ChallengeIdField = IdParam.openapi({ description: "From the matching start call" });

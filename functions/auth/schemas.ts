import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { Timestamp } from "../../lib/schemas/common";

/** SPEC.md 2.1 UserProfile. Fields Herald has no value for are null, never invented. */
export const UserProfileFields = {
  id: z.string().openapi({ example: "usr_0123456789abcdefghijklmn" }),
  email: z.string().email(),
  display_name: z.string(),
  username: z.string().nullable(),
  avatar_url: z.string().nullable(),
  composer_experience: z.string().openapi({ description: "Composer preference; `specialized` is the known value" }),
  created_at: Timestamp,
  email_verified: z.boolean(),
  has_password: z.boolean(),
  password_usable: z.boolean(),
  is_admin: z.boolean(),
  is_managed: z.boolean(),
  managed_organization_name: z.string().nullable(),
  legal_acceptance_required: z.boolean(),
  legal_accepted_at: Timestamp.nullable(),
  privacy_version: z.string().nullable(),
  terms_version: z.string().nullable(),
  public_profile_enabled: z.boolean(),
  public_profile_visible_fields: z.array(z.string()),
};

export const UserProfile = responseObject("UserProfile", UserProfileFields);
/** The same shape nested inside other responses (no `$schema` of its own). */
export const UserProfileObject = z.object(UserProfileFields).openapi("UserProfileObject");

export const Passkey = z.object({ id: z.string(), name: z.string(), created_at: Timestamp, last_used_at: Timestamp.nullable() }).openapi("Passkey");

export const SecurityStatus = responseObject("SecurityStatus", {
  methods: z.array(z.string()).openapi({ description: "Sign-in methods the user has, e.g. `passkey`, `totp`" }),
  passkeys: z.array(Passkey),
  totp_enabled: z.boolean(),
  user: UserProfileObject,
});

/** A WebAuthn ceremony's first step: the single-use challenge's id and the options for the browser. */
export const PasskeyChallenge = responseObject("PasskeyChallenge", {
  challenge_id: z.string().openapi({ description: "Pass back to the matching finish call; good for one use within 5 minutes" }),
  options: z
    .record(z.string(), z.unknown())
    .openapi({ description: "WebAuthn options JSON for navigator.credentials.create() (registration) or get() (sign-in)" }),
});

export const CreatedToken = responseObject("CreatedToken", {
  id: z.string(),
  name: z.string(),
  token: z.string().openapi({ description: "The bearer token; shown only in this response" }),
  created_at: Timestamp,
  expires_at: Timestamp.nullable().openapi({ description: "When it stops working; null: never" }),
});

/** CONTRACT §9: one of the caller's live tokens, as GET /auth/tokens lists it (never the token itself). */
export const ApiToken = responseObject("ApiToken", {
  id: z.string(),
  name: z.string(),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable(),
  expires_at: Timestamp.nullable().openapi({ description: "When it stops working; null: never" }),
});

export { Timestamp };

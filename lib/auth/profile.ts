import type { users } from "../../db/schema";

type UserRow = typeof users.$inferSelect;

/** UserProfile as SPEC.md 2.1 names it, from what Herald actually stores. */
export function toUserProfile(user: UserRow) {
  return {
    id: user.id,
    email: user.email,
    display_name: user.displayName,
    username: user.username,
    avatar_url: user.avatarUrl,
    composer_experience: "specialized",
    created_at: user.createdAt.toISOString(),
    // Herald has no passwords and no e-mail verification: accounts sign in with tokens and passkeys.
    email_verified: false,
    has_password: false,
    password_usable: false,
    is_admin: user.isAdmin,
    is_managed: false,
    managed_organization_name: null,
    legal_acceptance_required: false,
    legal_accepted_at: null,
    privacy_version: null,
    terms_version: null,
    public_profile_enabled: false,
    public_profile_visible_fields: [],
  };
}

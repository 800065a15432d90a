import type { Role } from "../../db/schema";
import { DomainError, notFound } from "../errors";

/** Each role has every right of the roles ranked below it. */
const RANK: Record<Role, number> = { viewer: 1, editor: 2, admin: 3, owner: 4 };

export const roleAtLeast = (role: Role, min: Role) => RANK[role] >= RANK[min];

/** Every role with at least the rights of `min`. */
export const rolesAtLeast = (min: Role): Role[] => (Object.keys(RANK) as Role[]).filter((role) => roleAtLeast(role, min));

/** 404 when not a member (existence is never revealed), 403 when the role is below `min`. */
export function checkRole(role: Role | null | undefined, min: Role, what: string): Role {
  if (!role) throw notFound(what);
  if (!roleAtLeast(role, min)) throw new DomainError("forbidden", `This needs the ${min} role or higher in the workspace; yours is ${role}.`);
  return role;
}

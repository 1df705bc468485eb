/** The four roles of SPEC.md section 6, weakest first. */
export const ROLES = ['user', 'operator', 'admin', 'superadmin'] as const;
export type Role = (typeof ROLES)[number];

/** Narrow an unknown value to a Role; throws on anything else so an unknown role fails loudly. */
export function asRole(value: unknown): Role {
  if (typeof value === 'string' && (ROLES as readonly string[]).includes(value)) return value as Role;
  throw new Error(`Unknown role: ${String(value)}`);
}

/** Client-side role test of SPEC.md section 6: admin is any role containing "admin". */
export const isAdminRole = (role: string): boolean => role.includes('admin');
/** Superadmin is the exact role. */
export const isSuperadminRole = (role: string): boolean => role === 'superadmin';

/** Role tag colours of SPEC.md section 6. */
export const ROLE_COLORS: Record<Role, string> = {
  superadmin: 'red',
  admin: 'red',
  operator: 'blue',
  user: 'green',
};

/** A role's rank: nobody grants a role above their own. */
export const roleRank = (role: Role): number => ROLES.indexOf(role);

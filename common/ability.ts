/** The one CASL ability builder, used by every server route and by the console. */
import { createMongoAbility, AbilityBuilder, type MongoAbility, type RawRuleOf } from '@casl/ability';
import { PERMISSIONS, SUBJECTS, type Action, type Subject } from './permissions.js';
import { asRole, type Role } from './roles.js';

export type AppAbility = MongoAbility<[Action, Subject | Record<string, unknown>]>;
export type AppRule = RawRuleOf<AppAbility>;

/**
 * Rights that resource schemas declare on subjects of their own (x-admin.permissions), role by role. The server
 * registers them once at start (registerSchemaRights); the auditors' file stays common/permissions.ts, which a schema
 * cannot change, and docs/permissions.md lists both.
 */
const schemaRights = new Map<string, Partial<Record<Role, readonly string[]>>>();

export function registerSchemaRights(resources: Array<{ 'x-admin': { subject: string; permissions?: Partial<Record<Role, readonly string[]>> } }>): void {
  for (const r of resources) if (r['x-admin'].permissions) schemaRights.set(r['x-admin'].subject, r['x-admin'].permissions);
}

/** The raw rules of a role, as the server sends them to the console. */
export function rulesFor(role: Role | string): AppRule[] {
  const checked = asRole(role);
  const define = PERMISSIONS[checked];
  const builder = new AbilityBuilder<AppAbility>(createMongoAbility);
  const can = (a: Action | Action[], s: Subject | Subject[], c?: Record<string, unknown>) => builder.can(a as never, s as never, c as never);
  const cannot = (a: Action | Action[], s: Subject | Subject[], c?: Record<string, unknown>) => builder.cannot(a as never, s as never, c as never);
  define(can as never, cannot as never);
  // A schema's subject is not in the file: "manage all" already covers it, so only its own rights decide. Its rules
  // come last and the role's wider rules for it are cancelled first.
  for (const [subject, perRole] of schemaRights) {
    builder.cannot('manage' as never, subject as never);
    const actions = perRole[checked] ?? [];
    if (actions.length) builder.can(actions as never, subject as never);
  }
  return builder.rules as AppRule[];
}

/** An ability from raw rules (the console receives rules from the server). */
export function abilityFromRules(rules: AppRule[]): AppAbility {
  return createMongoAbility<AppAbility>(rules);
}

/** The ability of a role. */
export function defineAbilityFor(role: Role | string): AppAbility {
  return abilityFromRules(rulesFor(role));
}

/** Tag a plain record with its subject type so that conditions apply to it. */
export function subjectOf(type: Exclude<Subject, 'all'>, record: Record<string, unknown>): Record<string, unknown> {
  return { ...record, __caslSubjectType__: type };
}

/** Every (subject, action) pair the file knows, for the matrix and the generated docs. */
export function allPairs(): Array<[Exclude<Subject, 'all'>, Action]> {
  return Object.entries(SUBJECTS).flatMap(([s, actions]) => actions.map((a) => [s, a] as [Exclude<Subject, 'all'>, Action]));
}

/** The one CASL ability builder, used by every server route and by the console. */
import { createMongoAbility, AbilityBuilder, subject as tag, type MongoAbility, type RawRuleOf, type MongoQuery } from '@casl/ability';
import { PERMISSIONS, RECORD_RULES, SUBJECTS, type Action, type Caller, type Conditions, type Subject } from './permissions.js';
import { asRole, type Role } from './roles.js';

/** A subject the file names, or one a resource schema declares (x-admin.subject). */
export type AnySubject = Subject | (string & Record<never, never>);
export type AppAbility = MongoAbility<[Action | (string & Record<never, never>), AnySubject | Record<string, unknown>], MongoQuery>;
export type AppRule = RawRuleOf<AppAbility>;

/**
 * The rights a resource schema declares on a subject of its own (x-admin.permissions), role by role: the schema
 * resources themselves are passed (the server's app.resources), so their rights come in as data, never registered.
 */
export interface SchemaRights {
  'x-admin': { subject: string; permissions?: Partial<Record<Role, readonly string[]>> };
}

/** A caller from a role alone (the generated docs, the console's per-organisation questions). */
const callerOf = (who: Caller | Role | string): Caller => (typeof who === 'string' ? { role: asRole(who) } : { ...who, role: asRole(who.role) });

/** The raw rules of a caller (or of a bare role), as the server sends them to the console. */
export function rulesFor(who: Caller | Role | string, schemas: readonly SchemaRights[] = []): AppRule[] {
  const caller = callerOf(who);
  const builder = new AbilityBuilder<AppAbility>(createMongoAbility);
  const can = (a: Action | Action[], s: Subject | Subject[], f?: Conditions | string[], c?: Conditions) =>
    Array.isArray(f) ? builder.can(a, s, f, c) : builder.can(a, s, f);
  const cannot = (a: Action | Action[], s: Subject | Subject[], f?: Conditions | string[], c?: Conditions) =>
    Array.isArray(f) ? builder.cannot(a, s, f, c) : builder.cannot(a, s, f);
  PERMISSIONS[caller.role](can, cannot, caller);
  RECORD_RULES(can, cannot, caller);
  // A schema's subject is not in the file: "manage all" already covers it, so only its own rights decide. Its rules
  // come last and the role's wider rules for it are cancelled first.
  for (const s of schemas) {
    const { subject, permissions } = s['x-admin'];
    if (!permissions) continue;
    builder.cannot('manage', subject);
    const actions = permissions[caller.role] ?? [];
    if (actions.length) builder.can([...actions], subject);
  }
  return builder.rules;
}

/** An ability from raw rules (the console receives rules from the server). */
export function abilityFromRules(rules: AppRule[]): AppAbility {
  return createMongoAbility<AppAbility>(rules);
}

/** The ability of a caller (or of a bare role), with the schema resources' declared rights. */
export function defineAbilityFor(who: Caller | Role | string, schemas: readonly SchemaRights[] = []): AppAbility {
  return abilityFromRules(rulesFor(who, schemas));
}

/** Tag a record with its subject type so that conditions apply to it (CASL's subject()). */
export function subjectOf(type: Exclude<Subject, 'all'>, record: Record<string, unknown>): Record<string, unknown> {
  return tag(type, { ...record });
}

/** Every (subject, action) pair the file knows, for the matrix and the generated docs. */
export function allPairs(): Array<[Exclude<Subject, 'all'>, Action]> {
  return Object.entries(SUBJECTS).flatMap(([s, actions]) => actions.map((a) => [s, a] as [Exclude<Subject, 'all'>, Action]));
}

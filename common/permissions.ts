/**
 * The auditors' file: every role's rights, one line per rule.
 *
 * Subjects are the feature keys of SPEC.md section 2 (plus our keys for the screens it leaves
 * unkeyed: "org" for orgs/orgscreate, "task" for taskcenter, "audit" for the audit trail, "enterprise" for an
 * organisation's settlement details and "subscription" for notification groups, both administrators' alone;
 * userDetail uses "account"). "manage" means every action, "all" every subject.
 * Conditions are matched against the record acted on (an account { role, orgIds, pendingInvite }, an organisation
 * { id, level }, a SIM transfer { receivingOrgId }); those that depend on the caller read the caller's memberships.
 * Each condition is named by a REASONS entry: the words docs/permissions.md shows and the refusal the server answers.
 *
 * docs/permissions.md is generated from this file (npm run docs:permissions) and a test keeps it in sync.
 */
import { ROLES, roleRank, type Role } from './roles.js';
import type { CODES } from './errors.js';

export const SUBJECTS = {
  sim: ['read', 'export', 'activate', 'suspend', 'resume', 'reset', 'transfer', 'uploadInfo', 'editInfo', 'sendSms', 'cancelBundle'],
  'shared-pool-cube': ['read', 'update', 'settings'],
  'sim-report-cube': ['read', 'create', 'update'],
  'customer-bill-cube': ['read', 'export', 'publish', 'settle', 'correct'],
  'cube-schedule-sms': ['read', 'create', 'update', 'delete'],
  'autoflow-cube': ['read', 'create', 'update', 'delete'],
  cdr: ['read', 'export'],
  'cube-developer-key': ['read', 'create', 'update', 'delete'],
  account: ['read', 'create', 'update', 'delete', 'changeStatus', 'resetPassword', 'updateAccess', 'grantOversight'],
  // oversee: become an administrator of every new sub-organisation of one's first-level organisation (SPEC.md section 6).
  org: ['read', 'create', 'update', 'rename', 'delete', 'oversee'],
  task: ['read'],
  audit: ['read'],
  // An organisation's enterprise and settlement details (GET /enterprises/selectByOrgCode, PUT /enterprises).
  enterprise: ['read', 'update'],
  // Notification subscription groups (GET, POST, PUT /rest/subscribe/group).
  subscription: ['read', 'create', 'update'],
} as const;

export type Subject = keyof typeof SUBJECTS | 'all';
export type Action = (typeof SUBJECTS)[keyof typeof SUBJECTS][number] | 'manage';
export type Conditions = Record<string, unknown>;

/** Who asks: the role in the current organisation, and what the conditions read about the caller. */
export interface Caller {
  role: Role;
  /** The current organisation (the partnerCode one). */
  orgId?: string;
  /** The account's oversight privilege (SPEC.md section 6). */
  oversight?: boolean;
  /** The caller's active memberships. */
  memberships?: ReadonlyArray<{ orgId: string; role: Role }>;
}

/**
 * Every condition a rule below names: the words an auditor reads in docs/permissions.md and the refusal the server
 * answers when it is what refuses (the code of common/errors.ts; a field and rule when it is the input that is wrong).
 */
export const REASONS = {
  superadminAccount: { words: 'a superadmin account', code: 'permissionDenied' },
  roleAboveOwn: { words: 'a role above the caller\'s own', code: 'permissionDenied' },
  invitee: { words: 'an invitee (not yet a member)', code: 'orgInsufficientPermission' },
  accountElsewhere: { words: 'an account that is also in an organisation where the caller lacks this right', code: 'orgInsufficientPermission' },
  notOrgAdmin: { words: 'an organisation the caller does not administer', code: 'orgInsufficientPermission' },
  firstLevelRename: { words: 'a first-level organisation where the caller is not superadmin', code: 'orgFirstLevelPermission' },
  firstLevelDelete: { words: 'a first-level organisation', code: 'orgFirstLevelPermission', messageKey: 'errors.orgFirstLevelDelete' },
  receivingOrg: { words: 'a receiving organisation that is the current one or one the caller does not administer', code: 'validation', field: 'targetOrgId', rule: 'receivingOrg' },
  noOversight: { words: 'a caller without the oversight privilege', code: 'permissionDenied' },
} as const satisfies Record<string, { words: string; code: keyof typeof CODES; messageKey?: string; field?: string; rule?: string }>;
export type Reason = keyof typeof REASONS;

interface RuleBuilder {
  because(reason: Reason): unknown;
}
type Can = (action: Action | Action[], subject: Subject | Subject[], conditionsOrFields?: Conditions | string[], conditions?: Conditions) => RuleBuilder;
type Define = (can: Can, cannot: Can, caller: Caller) => void;

const user: Define = (can) => {
  can('read', ['sim', 'shared-pool-cube', 'cdr', 'cube-schedule-sms', 'org', 'task']);
  can('export', 'sim');
  can('export', 'cdr');
};

const operator: Define = (can, cannot, caller) => {
  user(can, cannot, caller);
  can(['suspend', 'resume', 'reset', 'sendSms'], 'sim');
  can(['create', 'update', 'delete'], 'cube-schedule-sms');
};

const admin: Define = (can, cannot) => {
  can('manage', 'all');
  cannot(['update', 'delete', 'changeStatus', 'resetPassword', 'updateAccess', 'grantOversight'], 'account', { role: 'superadmin' }).because('superadminAccount');
};

const superadmin: Define = (can, cannot) => {
  can('manage', 'all');
  cannot('delete', 'account', { role: 'superadmin' }).because('superadminAccount');
};

/** Role by role, the rules. An unknown role has no entry and fails loudly in defineAbilityFor. */
export const PERMISSIONS: Record<Role, Define> = { user, operator, admin, superadmin };

/** Rights that change with the record, the same for every role; they come after the role's rules and win over them. */
export const RECORD_RULES: Define = (can, cannot, caller) => {
  const mine = caller.memberships ?? [];
  const ids = (roles: Role[]) => mine.filter((m) => roles.includes(m.role)).map((m) => m.orgId);
  const administered = ids(['admin', 'superadmin']);
  const superadministered = ids(['superadmin']);
  // Nobody grants a role above their own, whether creating an account, inviting or changing a member's role.
  const above = ROLES.filter((r) => roleRank(r) > roleRank(caller.role));
  if (above.length) cannot(['create', 'updateAccess'], 'account', { role: { $in: above } }).because('roleAboveOwn');
  // Names, language, status, password and oversight belong to the account, shared by all its organisations: changing
  // them needs the right in every one (a superadmin account's, superadmin there), and an invitee's are not ours yet.
  const wide: Action[] = ['changeStatus', 'resetPassword', 'grantOversight'];
  const profile = ['firstName', 'lastName', 'locale'];
  cannot(wide, 'account', { orgIds: { $elemMatch: { $nin: administered } } }).because('accountElsewhere');
  cannot('update', 'account', profile, { orgIds: { $elemMatch: { $nin: administered } } }).because('accountElsewhere');
  // (An admin is refused a superadmin account by the role's own rules, above.)
  if (caller.role === 'superadmin') {
    cannot(wide, 'account', { role: 'superadmin', orgIds: { $elemMatch: { $nin: superadministered } } }).because('accountElsewhere');
    cannot('update', 'account', profile, { role: 'superadmin', orgIds: { $elemMatch: { $nin: superadministered } } }).because('accountElsewhere');
  }
  cannot(wide, 'account', { pendingInvite: true }).because('invitee');
  cannot('update', 'account', profile, { pendingInvite: true }).because('invitee');
  // An organisation is changed by its own administrators; a first-level one is renamed by its superadmins only and
  // deleted by nobody.
  cannot('rename', 'org', { level: 1, id: { $nin: superadministered } }).because('firstLevelRename');
  cannot('delete', 'org', { level: 1 }).because('firstLevelDelete');
  cannot(['update', 'rename', 'delete'], 'org', { id: { $nin: administered } }).because('notOrgAdmin');
  // SIMs go to another organisation the caller administers (SPEC.md section 5).
  cannot('transfer', 'sim', { receivingOrgId: { $nin: administered.filter((id) => id !== caller.orgId) } }).because('receivingOrg');
  // Oversight: held by the accounts given the privilege, and by every superadmin without asking.
  if (caller.oversight || caller.role === 'superadmin') can('oversee', 'org');
  else cannot('oversee', 'org').because('noOversight');
};

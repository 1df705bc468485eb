/**
 * The auditors' file: every role's rights, one line per rule.
 *
 * Subjects are the feature keys of SPEC.md section 2 (plus our keys for the screens it leaves
 * unkeyed: "org" for orgs/orgscreate, "task" for taskcenter, "audit" for the audit trail, "enterprise" for an
 * organisation's settlement details and "subscription" for notification groups, both administrators' alone;
 * userDetail uses "account"). "manage" means every action, "all" every subject.
 * Conditions are matched against the record acted on (an account { role, orgIds, pendingInvite }, an organisation
 * { id, level }, a SIM transfer { receivingOrgId }, an organisation's pools { orgId }); those that depend on the caller read the caller's memberships.
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
  // read and export: the customer's invoices and their details file. The rest change invoices (INVOICE_CHANGES):
  // publish, settle (record a payment), correct (a new version), generate (run the invoice job for a closed month),
  // credit (issue a credit note), deposit (request a predeposit), settlement (a draft's settlement details).
  'customer-bill-cube': ['read', 'export', 'publish', 'settle', 'correct', 'generate', 'credit', 'deposit', 'settlement'],
  'cube-schedule-sms': ['read', 'create', 'update', 'delete'],
  'autoflow-cube': ['read', 'create', 'update', 'delete'],
  cdr: ['read', 'export'],
  'cube-developer-key': ['read', 'create', 'update', 'delete'],
  account: ['read', 'create', 'update', 'delete', 'changeStatus', 'resetPassword', 'updateAccess', 'grantOversight'],
  // oversee: become an administrator of every new sub-organisation of one's first-level organisation (SPEC.md section 6).
  org: ['read', 'create', 'update', 'rename', 'delete', 'oversee'],
  // read: one's own tasks; readAll: everyone's tasks of the organisation (who started each is shown), administrators'
  // alone, as the rest of what other members did is theirs to oversee.
  task: ['read', 'readAll'],
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
  /** The signed-in account (what "the caller's own" records are matched against). */
  accountId?: string;
  /** The current organisation (the partnerCode one). */
  orgId?: string;
  /** The account's oversight privilege (SPEC.md section 6). */
  oversight?: boolean;
  /** The provider's back office (accounts.back_office): set in the database only, never by a route. */
  backOffice?: boolean;
  /** The caller's active memberships. */
  memberships?: ReadonlyArray<{ orgId: string; role: Role }>;
}

/**
 * Every condition a rule below names: the words an auditor reads in docs/permissions.md and the refusal the server
 * answers when it is what refuses (the code of common/errors.ts; a field and rule when it is the input that is wrong).
 */
export const REASONS = {
  superadminAccount: { words: 'a superadmin account', code: 'permissionDenied' },
  roleAboveOwn: { words: "a role above the caller's own", code: 'permissionDenied' },
  invitee: { words: 'an invitee (not yet a member)', code: 'orgInsufficientPermission' },
  accountElsewhere: { words: 'an account that is also in an organisation where the caller lacks this right', code: 'orgInsufficientPermission' },
  notOrgAdmin: { words: 'an organisation the caller does not administer', code: 'orgInsufficientPermission' },
  firstLevelRename: { words: 'a first-level organisation where the caller is not superadmin', code: 'orgFirstLevelPermission' },
  firstLevelDelete: { words: 'a first-level organisation', code: 'orgFirstLevelPermission', messageKey: 'errors.orgFirstLevelDelete' },
  receivingOrg: {
    words: 'a receiving organisation that is the current one or one the caller does not administer',
    code: 'validation',
    field: 'targetOrgId',
    rule: 'receivingOrg',
  },
  noOversight: { words: 'a caller without the oversight privilege', code: 'permissionDenied' },
  notMember: { words: 'an organisation the caller is not a member of (answered as not found)', code: 'notFound' },
  notBackOffice: { words: "a caller who is not the provider's back office", code: 'permissionDenied' },
  othersSchedule: { words: 'a scheduled SMS another account created', code: 'permissionDenied', messageKey: 'errors.othersSchedule' },
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
  // Scheduling is sending: SPEC.md section 1 lists scheduled SMS under SMS beside instant send, and a schedule only
  // sends to the organisation's SIMs the text an operator could send by hand now (SPEC.md section 6 gives operators
  // "send SMS"). So operators create schedules and change, enable, disable and delete their own. Someone else's
  // schedule is that person's standing instruction: changing or deleting it is management, which section 6 leaves to
  // admins ("all management"); a schedule whose creator is gone is theirs too.
  can(['create', 'update', 'delete'], 'cube-schedule-sms');
  // (A caller without an account, as in the generated docs, owns none.)
  cannot(['update', 'delete'], 'cube-schedule-sms', { createdBy: { $nin: caller.accountId ? [caller.accountId] : [] } }).because('othersSchedule');
};

const admin: Define = (can, cannot) => {
  can('manage', 'all');
  cannot(['update', 'delete', 'changeStatus', 'resetPassword', 'updateAccess', 'grantOversight'], 'account', { role: 'superadmin' }).because(
    'superadminAccount',
  );
};

const superadmin: Define = (can, cannot) => {
  can('manage', 'all');
  cannot('delete', 'account', { role: 'superadmin' }).because('superadminAccount');
};

/**
 * What changes an invoice. An invoice is the provider's statement to the customer: making, issuing, correcting,
 * crediting it, asking for a deposit and recording that it was paid are the provider's billing side's, never the
 * customer's (a customer admin recording a payment would turn an invoice Paid with no money moving). SPEC.md section 6
 * gives the customer's roles no more than reading finance (customer-bill-cube read); so no role, admin and superadmin
 * included, holds these actions: only an account of the provider's back office does (RECORD_RULES), whatever its role
 * in the organisation. The back office is a flag of the account, not a role: no invitation, role change or account
 * route can grant it, so no customer account can come to hold it.
 */
export const INVOICE_CHANGES = ['publish', 'settle', 'correct', 'generate', 'credit', 'deposit', 'settlement'] as const satisfies ReadonlyArray<
  (typeof SUBJECTS)['customer-bill-cube'][number]
>;

/** Role by role, the rules. An unknown role has no entry and fails loudly in defineAbilityFor. */
export const PERMISSIONS: Record<Role, Define> = { user, operator, admin, superadmin };

/**
 * What belongs to an account itself, shared by all its organisations: these actions, and the update of these fields.
 * RECORD_RULES refuses them unless the caller has the right in every organisation of the account; the account list
 * asks the same rules about each row (server/org/account-routes.ts) so the console can say so before a refusal.
 */
export const ACCOUNT_WIDE: { readonly actions: Action[]; readonly fields: string[] } = {
  actions: ['changeStatus', 'resetPassword', 'grantOversight'],
  fields: ['firstName', 'lastName', 'locale'],
};

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
  const { actions: wide, fields: profile } = ACCOUNT_WIDE;
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
  // An organisation's pools (GET /shared_pool/cube/dashboard/{id}/pools) are read in an organisation the caller is
  // an active member of; every role reads pools, so membership is the whole condition.
  cannot('read', 'shared-pool-cube', { orgId: { $nin: mine.map((m) => m.orgId) } }).because('notMember');
  // Invoices are changed by the provider's back office alone (INVOICE_CHANGES); it also reads and downloads them.
  if (caller.backOffice) can(['read', 'export', ...INVOICE_CHANGES], 'customer-bill-cube');
  else cannot([...INVOICE_CHANGES], 'customer-bill-cube').because('notBackOffice');
  // Oversight: held by the accounts given the privilege, and by every superadmin without asking.
  if (caller.oversight || caller.role === 'superadmin') can('oversee', 'org');
  else cannot('oversee', 'org').because('noOversight');
};

/**
 * The auditors' file: every role's rights, one line per rule.
 *
 * Subjects are the feature keys of SPEC.md section 2 (plus our keys for the screens it leaves
 * unkeyed: "org" for orgs/orgscreate, "task" for taskcenter, "audit" for the audit trail, "enterprise" for an
 * organisation's settlement details and "subscription" for notification groups, both administrators' alone;
 * userDetail uses "account"). "manage" means every action, "all" every subject.
 * Conditions ({ role: 'superadmin' }, { level: 1 }) are matched against the record acted on.
 *
 * docs/permissions.md is generated from this file (npm run docs:permissions) and a test keeps it in sync.
 */
import type { Role } from './roles.js';

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
  org: ['read', 'create', 'update', 'rename', 'delete'],
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
type Can = (action: Action | Action[], subject: Subject, conditions?: Conditions) => void;
type Define = (can: Can, cannot: Can) => void;

const user: Define = (can) => {
  can('read', ['sim', 'shared-pool-cube', 'cdr', 'cube-schedule-sms', 'org', 'task'] as never);
  can('export', 'sim');
  can('export', 'cdr');
};

const operator: Define = (can, cannot) => {
  user(can, cannot);
  can(['suspend', 'resume', 'reset', 'sendSms'], 'sim');
  can(['create', 'update', 'delete'], 'cube-schedule-sms');
};

const admin: Define = (can, cannot) => {
  can('manage', 'all');
  cannot(['update', 'delete', 'changeStatus', 'resetPassword', 'updateAccess', 'grantOversight'], 'account', { role: 'superadmin' });
  cannot('rename', 'org', { level: 1 });
};

const superadmin: Define = (can, cannot) => {
  can('manage', 'all');
  cannot('delete', 'account', { role: 'superadmin' });
};

/** Role by role, the rules. An unknown role has no entry and fails loudly in defineAbilityFor. */
export const PERMISSIONS: Record<Role, Define> = { user, operator, admin, superadmin };

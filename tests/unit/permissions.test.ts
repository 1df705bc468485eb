import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defineAbilityFor, rulesFor, subjectOf } from '../../common/ability.js';
import { INVOICE_CHANGES, REASONS, type Action, type Caller, type Reason, type Subject } from '../../common/permissions.js';
import { isAdminRole, isSuperadminRole, ROLES } from '../../common/roles.js';
import { ALL_ROUTES } from '../../server/routes.js';
import { permissionsMarkdown } from '../../scripts/permissions-doc.js';

type Case = [role: string, action: Action, subject: Exclude<Subject, 'all'>, record: Record<string, unknown> | null, expected: boolean];

// SPEC.md section 6, as cases (CASL's advice: test behaviour, not rule arrays).
const CASES: Case[] = [
  ['user', 'read', 'sim', null, true],
  ['user', 'read', 'cdr', null, true],
  ['user', 'read', 'cube-schedule-sms', null, true],
  ['user', 'suspend', 'sim', null, false],
  ['user', 'sendSms', 'sim', null, false],
  ['user', 'read', 'account', null, false],
  ['user', 'read', 'autoflow-cube', null, false],
  ['user', 'read', 'customer-bill-cube', null, false],
  // Not in SPEC.md section 6's user row, kept on purpose (docs/decisions.md).
  ['user', 'export', 'sim', null, true],
  ['user', 'export', 'cdr', null, true],
  ['user', 'read', 'shared-pool-cube', null, true],
  ['user', 'update', 'shared-pool-cube', null, false],
  ['user', 'settings', 'shared-pool-cube', null, false],
  ['operator', 'suspend', 'sim', null, true],
  ['operator', 'resume', 'sim', null, true],
  ['operator', 'reset', 'sim', null, true],
  ['operator', 'sendSms', 'sim', null, true],
  ['operator', 'activate', 'sim', null, false],
  ['operator', 'transfer', 'sim', null, false],
  ['operator', 'uploadInfo', 'sim', null, false],
  ['operator', 'editInfo', 'sim', null, false],
  ['operator', 'create', 'account', null, false],
  ['admin', 'transfer', 'sim', null, true],
  ['admin', 'uploadInfo', 'sim', null, true],
  ['admin', 'editInfo', 'sim', null, true],
  ['admin', 'create', 'org', null, true],
  ['admin', 'updateAccess', 'account', { role: 'operator' }, true],
  ['admin', 'updateAccess', 'account', { role: 'superadmin' }, false],
  ['admin', 'delete', 'account', { role: 'admin' }, true],
  ['admin', 'delete', 'account', { role: 'superadmin' }, false],
  ['superadmin', 'updateAccess', 'account', { role: 'superadmin' }, true],
  ['superadmin', 'delete', 'account', { role: 'superadmin' }, false],
  ['superadmin', 'delete', 'account', { role: 'admin' }, true],
  ['admin', 'read', 'audit', null, true],
  ['operator', 'read', 'audit', null, false],
  // Scheduling is sending (SPEC.md section 6 "send SMS"): operators schedule; changing someone else's is management.
  ['operator', 'create', 'cube-schedule-sms', null, true],
  ['operator', 'update', 'cube-schedule-sms', { createdBy: 'acc-admin' }, false],
  ['operator', 'delete', 'cube-schedule-sms', { createdBy: 'acc-admin' }, false],
  ['operator', 'delete', 'cube-schedule-sms', { createdBy: null }, false],
  ['user', 'create', 'cube-schedule-sms', null, false],
  ['admin', 'delete', 'cube-schedule-sms', { createdBy: 'acc-operator' }, true],
  ['superadmin', 'update', 'cube-schedule-sms', { createdBy: 'acc-operator' }, true],
  // The customer's roles read and download invoices; changing them is the provider's back office's.
  ['admin', 'read', 'customer-bill-cube', null, true],
  ['admin', 'export', 'customer-bill-cube', null, true],
];

describe('declared permissions', () => {
  it.each(CASES)('%s may %s %s %j: %s', (role, action, subject, record, expected) => {
    const ability = defineAbilityFor(role);
    expect(record ? ability.can(action, subjectOf(subject, record)) : ability.can(action, subject)).toBe(expected);
  });

  it('fails loudly on an unknown role', () => {
    expect(() => rulesFor('guest')).toThrow('Unknown role: guest');
  });

  it('tests roles on the client as SPEC.md says', () => {
    expect(isAdminRole('admin')).toBe(true);
    expect(isAdminRole('superadmin')).toBe(true);
    expect(isAdminRole('operator')).toBe(false);
    expect(isSuperadminRole('superadmin')).toBe(true);
    expect(isSuperadminRole('admin')).toBe(false);
  });

  it('docs/permissions.md is in sync with the rules, and names every condition', () => {
    const doc = fs.readFileSync('docs/permissions.md', 'utf8');
    for (const r of Object.values(REASONS)) expect(doc).toContain(r.words);
    expect(doc).toBe(permissionsMarkdown(ALL_ROUTES));
  });
});

/**
 * The conditions of common/permissions.ts: each one, for a caller who otherwise has the right, refuses the record it
 * names (with its reason, which the server turns into the answer) and allows the record next to it.
 */
const A = 'org-a';
const B = 'org-b';
const C = 'org-c';
const adminOfAB: Caller = {
  role: 'admin',
  orgId: A,
  memberships: [
    { orgId: A, role: 'admin' },
    { orgId: B, role: 'admin' },
    { orgId: C, role: 'user' },
  ],
};
const superOfA: Caller = {
  role: 'superadmin',
  orgId: A,
  memberships: [
    { orgId: A, role: 'superadmin' },
    { orgId: B, role: 'admin' },
  ],
};
type ConditionCase = [
  reason: Reason,
  who: Caller,
  action: Action,
  subject: Exclude<Subject, 'all'>,
  field: string | undefined,
  refused: Record<string, unknown>,
  allowed: Record<string, unknown>,
];
const CONDITION_CASES: ConditionCase[] = [
  ['superadminAccount', adminOfAB, 'changeStatus', 'account', undefined, { role: 'superadmin', orgIds: [A] }, { role: 'admin', orgIds: [A] }],
  ['roleAboveOwn', adminOfAB, 'create', 'account', undefined, { role: 'superadmin' }, { role: 'admin' }],
  ['roleAboveOwn', { ...adminOfAB, role: 'admin' }, 'updateAccess', 'account', undefined, { role: 'superadmin' }, { role: 'operator' }],
  [
    'invitee',
    adminOfAB,
    'resetPassword',
    'account',
    undefined,
    { role: 'user', orgIds: [], pendingInvite: true },
    { role: 'user', orgIds: [A], pendingInvite: false },
  ],
  [
    'invitee',
    adminOfAB,
    'update',
    'account',
    'firstName',
    { role: 'user', orgIds: [], pendingInvite: true },
    { role: 'user', orgIds: [A], pendingInvite: false },
  ],
  ['accountElsewhere', adminOfAB, 'changeStatus', 'account', undefined, { role: 'user', orgIds: [A, C] }, { role: 'user', orgIds: [A, B] }],
  ['accountElsewhere', adminOfAB, 'update', 'account', 'locale', { role: 'operator', orgIds: [A, C] }, { role: 'operator', orgIds: [B] }],
  ['accountElsewhere', superOfA, 'grantOversight', 'account', undefined, { role: 'superadmin', orgIds: [A, B] }, { role: 'superadmin', orgIds: [A] }],
  ['notOrgAdmin', adminOfAB, 'update', 'org', undefined, { id: C, level: 2 }, { id: B, level: 2 }],
  ['notOrgAdmin', adminOfAB, 'delete', 'org', undefined, { id: C, level: 2 }, { id: B, level: 2 }],
  ['firstLevelRename', adminOfAB, 'rename', 'org', undefined, { id: A, level: 1 }, { id: A, level: 2 }],
  ['firstLevelRename', superOfA, 'rename', 'org', undefined, { id: B, level: 1 }, { id: A, level: 1 }],
  ['firstLevelDelete', superOfA, 'delete', 'org', undefined, { id: A, level: 1 }, { id: A, level: 2 }],
  ['receivingOrg', adminOfAB, 'transfer', 'sim', undefined, { receivingOrgId: C }, { receivingOrgId: B }],
  ['receivingOrg', adminOfAB, 'transfer', 'sim', undefined, { receivingOrgId: A }, { receivingOrgId: B }],
  ['receivingOrg', adminOfAB, 'transfer', 'sim', undefined, { receivingOrgId: null }, { receivingOrgId: B }],
  ['notMember', adminOfAB, 'read', 'shared-pool-cube', undefined, { orgId: 'org-d' }, { orgId: C }],
  ['notMember', { role: 'user', orgId: A, memberships: [{ orgId: A, role: 'user' }] }, 'read', 'shared-pool-cube', undefined, { orgId: B }, { orgId: A }],
  [
    'othersSchedule',
    { role: 'operator', accountId: 'acc-operator' },
    'delete',
    'cube-schedule-sms',
    undefined,
    { createdBy: 'acc-admin' },
    { createdBy: 'acc-operator' },
  ],
  [
    'othersSchedule',
    { role: 'operator', accountId: 'acc-operator' },
    'update',
    'cube-schedule-sms',
    undefined,
    { createdBy: null },
    { createdBy: 'acc-operator' },
  ],
];

describe('conditions of the permission file', () => {
  it.each(CONDITION_CASES)('%s refuses what it names and no more (%j may %s %s)', (reason, who, action, subject, field, refused, allowed) => {
    const ability = defineAbilityFor(who);
    expect(ability.can(action, subject)).toBe(true);
    const no = subjectOf(subject, refused);
    expect(ability.can(action, no, field)).toBe(false);
    expect(ability.relevantRuleFor(action, no, field)?.reason).toBe(reason);
    expect(ability.can(action, subjectOf(subject, allowed), field)).toBe(true);
  });

  it('every condition is exercised above', () => {
    expect(new Set(CONDITION_CASES.map((c) => c[0]))).toEqual(new Set(Object.keys(REASONS).filter((r) => r !== 'noOversight' && r !== 'notBackOffice')));
  });

  // Every invoice change, for every role with every privilege a customer account can hold: refused, and said why.
  const customers = ROLES.flatMap((role) => [{ role }, { role, oversight: true }, { role, orgId: A, memberships: [{ orgId: A, role }] }] as Caller[]);
  it.each(customers.flatMap((who) => INVOICE_CHANGES.map((action) => [who, action] as const)))(
    'no customer account changes an invoice: %j may not %s',
    (who, action) => {
      const ability = defineAbilityFor(who);
      expect(ability.can(action, 'customer-bill-cube')).toBe(false);
      expect(ability.relevantRuleFor(action, 'customer-bill-cube')?.reason).toBe('notBackOffice');
    },
  );

  it.each(ROLES)("the provider's back office changes invoices whatever its role in the organisation (%s)", (role) => {
    const ability = defineAbilityFor({ role, backOffice: true });
    for (const action of ['read', 'export', ...INVOICE_CHANGES] as const) expect(ability.can(action, 'customer-bill-cube')).toBe(true);
  });

  it('the invoice changes are every action of the bill subject but reading and downloading', () => {
    expect(new Set(INVOICE_CHANGES)).toEqual(new Set(['publish', 'settle', 'correct', 'generate', 'credit', 'deposit', 'settlement']));
  });

  it('only the account-wide fields of an update need the right everywhere: the role of this membership does not', () => {
    const ability = defineAbilityFor(adminOfAB);
    expect(ability.can('update', subjectOf('account', { role: 'user', orgIds: [A, C] }))).toBe(true);
  });

  it.each([
    [{ role: 'admin', oversight: false }, false],
    [{ role: 'admin', oversight: true }, true],
    [{ role: 'user', oversight: true }, true],
    [{ role: 'superadmin', oversight: false }, true],
  ] as Array<[Caller, boolean]>)('oversight: %j oversees new sub-organisations: %s', (who, expected) => {
    const ability = defineAbilityFor(who);
    expect(ability.can('oversee', 'org')).toBe(expected);
    if (!expected) expect(ability.relevantRuleFor('oversee', 'org')?.reason).toBe('noOversight');
  });

  it("a schema resource's declared rights come in as data: its subject is closed to the roles it does not name", () => {
    const schemas = [{ 'x-admin': { subject: 'gateways', permissions: { operator: ['read'], admin: ['read', 'create'] } } }];
    expect(defineAbilityFor('operator', schemas).can('read', 'gateways')).toBe(true);
    expect(defineAbilityFor('operator', schemas).can('create', 'gateways')).toBe(false);
    expect(defineAbilityFor('superadmin', schemas).can('read', 'gateways')).toBe(false);
    expect(defineAbilityFor('admin', schemas).can('create', 'gateways')).toBe(true);
    expect(defineAbilityFor('admin').can('create', 'gateways')).toBe(true);
  });
});

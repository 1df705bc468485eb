import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defineAbilityFor, rulesFor, subjectOf } from '../../common/ability.js';
import type { Action, Subject } from '../../common/permissions.js';
import { isAdminRole, isSuperadminRole } from '../../common/roles.js';
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
  ['admin', 'rename', 'org', { level: 1 }, false],
  ['admin', 'rename', 'org', { level: 2 }, true],
  ['superadmin', 'rename', 'org', { level: 1 }, true],
  ['superadmin', 'updateAccess', 'account', { role: 'superadmin' }, true],
  ['superadmin', 'delete', 'account', { role: 'superadmin' }, false],
  ['superadmin', 'delete', 'account', { role: 'admin' }, true],
  ['admin', 'read', 'audit', null, true],
  ['operator', 'read', 'audit', null, false],
];

describe('declared permissions', () => {
  it.each(CASES)('%s may %s %s %j: %s', (role, action, subject, record, expected) => {
    const ability = defineAbilityFor(role);
    expect(ability.can(action, (record ? subjectOf(subject, record) : subject) as never)).toBe(expected);
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

  it('docs/permissions.md is in sync with the rules', () => {
    expect(fs.readFileSync('docs/permissions.md', 'utf8')).toBe(permissionsMarkdown(ALL_ROUTES));
  });
});

/** The demo's task center: every seeded task is one its owner's role may start (docs/permissions.md). */
import { describe, expect, it } from 'vitest';
import { defineAbilityFor } from '../../common/ability';
import { DEMO_TASK_KINDS, DEMO_TASK_OWNERS, TASK_RIGHTS, demoTaskOwner } from '../../server/db/seed/reports';

const ROLES: Record<string, string> = { 'acc-admin': 'admin', 'acc-operator': 'operator', 'acc-superadmin': 'superadmin', 'acc-user': 'user' };

describe('the owner of a demo task', () => {
  it.each(DEMO_TASK_KINDS.flatMap((kind) => DEMO_TASK_OWNERS.map((drawn) => [kind, drawn] as const)))('of %s drawn for %s may start it', (kind, drawn) => {
    const owner = demoTaskOwner(drawn, kind);
    expect(defineAbilityFor(ROLES[owner]).can(...TASK_RIGHTS[kind])).toBe(true);
    // The one drawn keeps it when their role allows (the demo's spread of owners stays).
    if (defineAbilityFor(ROLES[drawn]).can(...TASK_RIGHTS[kind])) expect(owner).toBe(drawn);
  });

  it('gives a user none of the SIM actions a user cannot take', () => {
    for (const kind of ['sim_resume', 'sim_suspend', 'sim_reset', 'sim_transfer']) expect(demoTaskOwner('acc-user', kind)).not.toBe('acc-user');
    expect(demoTaskOwner('acc-user', 'sim_export')).toBe('acc-user');
  });
});

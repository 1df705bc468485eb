/** Generators: autoflow rules and their runs; the scheduled evaluation armed once the seed is in. */
import { armScheduled } from '../../autoflow/schedule.js';
import { DEMO_POOL_ID, DEMO_RULE_NAME, fixedId } from './fixtures.js';
import { type Ctx, DAY, MINUTE, type Row, insertRows } from './rows.js';

export async function seedAutoflow(ctx: Ctx): Promise<void> {
  const { rng, now, size } = ctx;
  interface RuleTemplate {
    name: string;
    trigger: string;
    condition: Record<string, unknown>;
    scope: Record<string, unknown>;
    actions: Array<{ type: string; emails?: string[]; speedKbps?: number }>;
    status: 'enabled' | 'disabled' | 'deleted';
  }
  // Documents in the shape of common/autoflow-rule.ts, so the builder opens every seeded rule as it is.
  const templates: RuleTemplate[] = [
    {
      name: DEMO_RULE_NAME,
      trigger: 'data_usage',
      condition: { threshold: 50, unit: 'MB', window: 'cycle' },
      scope: { type: 'all' },
      actions: [{ type: 'email', emails: ['ops@demo.example.com'] }],
      status: 'enabled',
    },
    {
      name: 'Suspend at 90% of bundle',
      trigger: 'data_usage_percent',
      condition: { percent: 90 },
      scope: { type: 'tags', tags: ['pilot'] },
      actions: [{ type: 'suspend' }, { type: 'webhook' }],
      status: 'enabled',
    },
    {
      name: 'Paused back to active',
      trigger: 'status_change',
      condition: { from: 'paused', to: 'active' },
      scope: { type: 'all' },
      actions: [{ type: 'webhook' }],
      status: 'disabled',
    },
    {
      name: 'Expiry in 30 days',
      trigger: 'expiry_reminder',
      condition: { days: 30 },
      scope: { type: 'all' },
      actions: [{ type: 'email', emails: ['billing@demo.example.com'] }],
      status: 'enabled',
    },
    {
      name: 'IMEI swap guard',
      trigger: 'imei_change',
      condition: { mode: 'any' },
      scope: { type: 'product_type', productType: 'automotive' },
      actions: [{ type: 'suspend' }],
      status: 'enabled',
    },
    {
      name: 'MO SMS burst',
      trigger: 'sms_mo',
      condition: { count: 20, window: 'rolling_24h' },
      scope: { type: 'all' },
      actions: [{ type: 'email', emails: ['ops@demo.example.com'] }],
      status: 'disabled',
    },
    {
      name: 'Pool SIMs at 80 %',
      trigger: 'data_usage_percent',
      condition: { percent: 80 },
      scope: { type: 'pool', poolId: DEMO_POOL_ID },
      actions: [
        { type: 'throttle', speedKbps: 256 },
        { type: 'email', emails: ['ops@demo.example.com'] },
      ],
      status: 'enabled',
    },
    {
      name: 'Old threshold rule',
      trigger: 'data_usage',
      condition: { threshold: 10, unit: 'MB', window: 'cycle' },
      scope: { type: 'all' },
      actions: [{ type: 'email', emails: ['ops@demo.example.com'] }],
      status: 'deleted',
    },
  ];
  const perOrg: Record<string, typeof templates> = {
    'org-demo': size === 'small' ? [templates[0], templates[1], templates[2], templates[7]] : templates,
    'org-demo-north': size === 'small' ? [] : [templates[0], templates[3]],
    'org-other': [{ ...templates[0], name: 'Other data alert', actions: [{ type: 'email', emails: ['ops@other.example.com'] }] }],
  };
  const rules: Row[] = [];
  const runs: Row[] = [];
  for (const [org, list] of Object.entries(perOrg)) {
    const orgSims = ctx.sims.filter((s) => s.org === org && s.status === 'active');
    list.forEach((t, i) => {
      const id = fixedId(`rule:${org}:${i}`);
      const created = new Date(now.getTime() - (60 - i * 5) * DAY);
      const runCount = t.status === 'enabled' ? (size === 'small' ? 2 : rng.int(10, 40)) : 0;
      let last: Date | null = null;
      for (let r = 0; r < runCount && orgSims.length > 0; r++) {
        const s = rng.pick(orgSims);
        const at = new Date(now.getTime() - rng.int(10, 29 * 24 * 60) * MINUTE);
        if (!last || at > last) last = at;
        const status = rng.chance(0.9) ? 'success' : 'failed';
        // Each action's outcome, as the engine writes it: a webhook handed to its delivery is queued; in a failed run
        // the first action failed.
        const actions = t.actions.map((a, n) => ({ ...a, outcome: status === 'failed' && n === 0 ? 'failed' : a.type === 'webhook' ? 'queued' : 'done', at }));
        runs.push({
          org_id: org,
          rule_id: id,
          sim_id: s.id,
          iccid: s.iccid,
          trigger: t.trigger,
          at,
          status,
          actions: JSON.stringify(actions),
          detail: { actions: t.actions.map((a) => a.type), condition: t.condition },
        });
      }
      rules.push({
        org_id: org,
        id,
        name: t.name,
        trigger: t.trigger,
        condition: t.condition,
        scope: t.scope,
        actions: JSON.stringify(t.actions),
        status: t.status,
        activation_at: created,
        expiry_at: i % 3 === 1 ? new Date(now.getTime() + 180 * DAY) : null,
        created_by: org === 'org-other' ? 'acc-other-admin' : i % 2 ? 'acc-superadmin' : 'acc-admin',
        origin: i === 4 ? 'template' : 'console',
        last_run_at: last,
        run_count: runCount,
        deleted_at: t.status === 'deleted' ? new Date(now.getTime() - 3 * DAY) : null,
        created_at: created,
        updated_at: created,
      });
    });
  }
  await insertRows(ctx.q, 'autoflow_rules', rules);
  await insertRows(ctx.q, 'autoflow_runs', runs);
}

/**
 * The seeded rules have "run" for weeks (their run history says so): what their scheduled triggers meet at seed time
 * fired back then. Armed, not fired, so the first evaluation after the seed fires only crossings that happen after it
 * (without this a fresh start fired hundreds of runs, mails and suspensions). Last, over the finished rollups.
 */
export async function armAutoflow(ctx: Ctx): Promise<void> {
  await armScheduled(ctx.q, ctx.now);
}

/**
 * Every value the server can send for a closed set (a SIM's status, an event's type, a task's kind, an SMS's status, a
 * rule's trigger and actions, an invoice's status …) has words in the four languages where the console shows it.
 *
 * The values come from where the server's own truth is, not from a copy: the database's CHECK constraints (read from a
 * freshly migrated database, so a migration that adds a value is walked at once), common/'s lists and the webhook
 * event catalogue. Each constrained column is either shown (the key the console words it with, the file that does,
 * and the page's own word files when they come with the page) or listed as never shown with the reason; a new column
 * that is neither fails, so a new closed set cannot reach a screen unworded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_OUTCOMES, ACTION_TYPES, IMEI_MODES, RULE_SIM_STATUSES, SCOPE_TYPES, TRIGGER_TYPES, WINDOWS } from '../../common/autoflow-rule.js';
import { SIM_ACTIONS, SUB_STATUSES } from '../../common/lifecycle.js';
import { LANGUAGES, type Language } from '../../common/limits.js';
import { SERVER_ONLY_NAMESPACES } from '../../common/server-only-words.js';
import { NOTIFICATION_KINDS } from '../../common/subscriptions.js';
import type { Db } from '../../server/db/db.js';
import { EVENT_CATALOGUE } from '../../server/developer/notification-routes.js';
import { DB_KINDS, freshDb } from '../helper.js';

type Tree = { [k: string]: string | Tree };
const read = (file: string): Tree => JSON.parse(fs.readFileSync(file, 'utf8'));
const merge = (a: Tree, b: Tree): Tree => {
  const out: Tree = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = typeof v === 'object' && typeof out[k] === 'object' ? merge(out[k] as Tree, v) : v;
  return out;
};
const at = (tree: Tree, key: string): unknown => key.split('.').reduce<unknown>((n, p) => (n && typeof n === 'object' ? (n as Tree)[p] : undefined), tree);

/** The page folders whose words come with their pages (src/components/page-texts.ts). */
type Page = 'autoflow' | 'cdr' | 'taskcenter' | 'developer' | 'org' | 'pool' | 'sms-schedules' | 'sim-policy' | 'invoice' | 'bundles' | 'server';
const PAGE_DIRS: Record<Exclude<Page, 'server'>, string> = {
  autoflow: 'src/custom/autoflow/locales',
  cdr: 'src/custom/cdr/locales',
  taskcenter: 'src/custom/taskcenter/locales',
  developer: 'src/custom/developer/locales',
  org: 'src/custom/org/locales',
  pool: 'src/custom/pool/locales',
  'sms-schedules': 'src/custom/sms-schedules/locales',
  'sim-policy': 'src/custom/sim-detail/policy-locales',
  invoice: 'src/custom/billing/invoice-locales',
  bundles: 'src/custom/bundles/locales',
};

/** The words the console holds in a language on a page: common/locales without the server's own, src/locales, the page's. */
function words(lang: Language, pages: Page[] = []): Tree {
  const common = read(`common/locales/${lang}.json`);
  const server = pages.includes('server');
  const shared = Object.fromEntries(Object.entries(common).filter(([k]) => server || !(SERVER_ONLY_NAMESPACES as readonly string[]).includes(k))) as Tree;
  let tree = merge(shared, read(`src/locales/${lang}.json`));
  for (const p of pages) if (p !== 'server') tree = merge(tree, read(path.join(PAGE_DIRS[p], `${lang}.json`)));
  return tree;
}

/**
 * Where the console shows a value: `key` with `{}` for the value, the file that words it so, and its pages' words;
 * `via` when the file builds the key from a prefix (the schema forms: `<prefix>.enum.<field>.<value>`).
 */
interface Shown {
  key: string;
  file: string;
  pages?: Page[];
  via?: string;
}

/** Each constrained column ("table.column") the console shows, and where. */
const SHOWN: Record<string, Shown[]> = {
  'accounts.locale': [{ key: 'language.{}', file: 'src/components/language-switcher.tsx' }],
  'autoflow_rules.status': [{ key: 'autoflow.status.{}', file: 'src/custom/autoflow/rule-list.tsx', pages: ['autoflow'] }],
  'autoflow_rules.trigger': [{ key: 'autoflow.trigger.enum.type.{}', file: 'src/custom/autoflow/rule-list.tsx', pages: ['autoflow'] }],
  'autoflow_runs.status': [{ key: 'autoflow.outcome.{}', file: 'src/custom/autoflow/trigger-page.tsx', pages: ['autoflow'] }],
  'bundle_orders.out_of_coverage': [{ key: 'bundleOrders.enum.outOfCoverage.{}', file: 'src/custom/sim-detail/bundles-tab.tsx' }],
  'bundle_orders.overage_policy': [{ key: 'bundleOrders.enum.overagePolicy.{}', file: 'src/custom/sim-detail/bundles-tab.tsx' }],
  'bundle_orders.payment_mode': [{ key: 'bundleOrders.enum.paymentMode.{}', file: 'src/custom/sim-detail/bundles-tab.tsx' }],
  'bundle_orders.reset_cycle': [{ key: 'bundleOrders.enum.resetCycle.{}', file: 'src/custom/sim-detail/bundles-tab.tsx' }],
  'bundle_orders.service_type': [{ key: 'bundleOrders.enum.serviceType.{}', file: 'src/custom/sim-detail/bundles-tab.tsx' }],
  'bundle_orders.status': [{ key: 'bundleOrders.enum.status.{}', file: 'src/custom/sim-detail/bundles-tab.tsx' }],
  'bundle_orders.type': [{ key: 'bundleOrders.enum.type.{}', file: 'src/custom/sim-detail/bundles-tab.tsx' }],
  'cdrs.direction': [{ key: 'cdrs.enum.direction.{}', file: 'src/custom/sim-detail/cdrs-tab.tsx' }],
  'cdrs.rat': [{ key: 'cdrs.enum.rat.{}', file: 'src/custom/sim-detail/cdrs-tab.tsx' }],
  'enterprises.invoice_type': [{ key: 'enterprise.types.{}', file: 'src/custom/org/enterprise-drawer.tsx', pages: ['org'] }],
  'invoices.status': [{ key: 'invoices.enum.status.{}', file: 'src/custom/billing/invoice-lifecycle.tsx', pages: ['invoice'] }],
  'invoices.type': [{ key: 'invoices.enum.type.{}', file: 'schemas/invoices.json' }],
  'memberships.role': [
    { key: 'roles.{}', file: 'src/pages/account/profile-page.tsx' },
    { key: 'accounts.enum.role.{}', file: 'src/custom/org/account-pages.tsx' },
  ],
  'pool_events.state': [{ key: 'poolEvents.enum.state.{}', file: 'schemas/pool-events.json' }],
  'pool_events.type': [{ key: 'poolEvents.enum.type.{}', file: 'schemas/pool-events.json' }],
  'reports.report': [{ key: 'reports.enum.report.{}', file: 'schemas/reports.json' }],
  'reports.status': [{ key: 'reports.enum.status.{}', file: 'schemas/reports.json' }],
  'shared_pools.activation_rule': [{ key: 'pools.enum.activationRule.{}', file: 'src/custom/pool/settings.tsx', pages: ['pool'] }],
  'shared_pools.opt_in_mode': [{ key: 'pools.enum.optInMode.{}', file: 'src/custom/pool/settings.tsx', pages: ['pool'] }],
  'shared_pools.overage_policy': [{ key: 'pools.enum.overagePolicy.{}', file: 'src/custom/pool/settings.tsx', pages: ['pool'] }],
  'shared_pools.status': [{ key: 'pools.enum.status.{}', file: 'schemas/pools.json' }],
  'sim_events.from_status': [{ key: 'sims.enum.status.{}', file: 'src/custom/sim-detail/events-tab.tsx' }],
  'sim_events.to_status': [{ key: 'sims.enum.status.{}', file: 'src/custom/sim-detail/events-tab.tsx' }],
  'sim_events.source': [{ key: 'simDetail.events.sources.{}', file: 'src/custom/sim-detail/events-tab.tsx' }],
  'sim_events.type': [{ key: 'simDetail.events.types.{}', file: 'src/custom/sim-detail/events-tab.tsx' }],
  'sims.connection_status': [{ key: 'sims.enum.connectionStatus.{}', file: 'schemas/sims.json' }],
  'sims.cycle_reset': [{ key: 'bundleOrders.enum.resetCycle.{}', file: 'src/custom/sim-detail/service-tab.tsx', pages: ['sim-policy'] }],
  'sims.overage_control': [{ key: 'simService.service.controls.{}', file: 'src/custom/sim-detail/service-tab.tsx', pages: ['sim-policy'] }],
  'sims.flow_control_policy': [{ key: 'simService.service.controls.{}', file: 'src/custom/sim-detail/service-tab.tsx', pages: ['sim-policy'] }],
  'sims.rule_control': [{ key: 'simService.service.controls.{}', file: 'src/custom/sim-detail/service-tab.tsx', pages: ['sim-policy'] }],
  'sims.product_type': [
    { key: 'sims.enum.productType.{}', file: 'schemas/sims.json' },
    { key: 'autoflow.scope.enum.productType.{}', file: 'src/custom/autoflow/trigger-page.tsx', pages: ['autoflow'] },
  ],
  // A rule's "SIMs in scope" tab and the pool dashboard show SIM statuses too.
  'sims.status': [
    { key: 'sims.enum.status.{}', file: 'schemas/sims.json' },
    { key: 'sims.enum.status.{}', file: 'src/custom/autoflow/trigger-page.tsx', pages: ['autoflow'] },
    { key: 'sims.enum.status.{}', file: 'src/custom/pool/dashboard.tsx', pages: ['pool'] },
  ],
  'sims.technology': [{ key: 'sims.enum.technology.{}', file: 'schemas/sims.json' }],
  'sims.test_data_status': [{ key: 'simService.periods.testStatus.{}', file: 'src/custom/sim-detail/service-tab.tsx', pages: ['sim-policy'] }],
  'sms_records.direction': [
    { key: 'sms.direction.{}', file: 'src/custom/sms/message-page.tsx' },
    { key: 'simDetail.sms.directions.{}', file: 'src/custom/sim-detail/sms-tab.tsx' },
  ],
  'sms_records.status': [
    { key: 'sms.status.{}', file: 'src/custom/sms/message-page.tsx' },
    { key: 'simDetail.sms.statuses.{}', file: 'src/custom/sim-detail/sms-tab.tsx' },
  ],
  'sms_records.sms_type': [{ key: 'simDetail.sms.types.{}', file: 'src/custom/sim-detail/sms-tab.tsx' }],
  'sms_schedule_runs.status': [{ key: 'smsSchedules.runStatus.{}', file: 'src/custom/sms-schedules/run-history.tsx', pages: ['sms-schedules'] }],
  'sms_schedules.mode': [{ key: 'smsSchedules.mode.{}', file: 'src/custom/sms-schedules/schedule-form.tsx', pages: ['sms-schedules'] }],
  'sms_schedules.sms_type': [{ key: 'smsSchedules.smsType.{}', file: 'src/custom/sms-schedules/schedule-form.tsx', pages: ['sms-schedules'] }],
  'sms_schedules.status': [{ key: 'smsSchedules.status.{}', file: 'src/custom/sms-schedules/schedule-list.tsx', pages: ['sms-schedules'] }],
  'subscription_groups.language': [{ key: 'language.{}', file: 'src/components/language-switcher.tsx' }],
  'task_logs.provider': [{ key: 'providerLog.{}', file: 'src/custom/taskcenter/provider-log.tsx', pages: ['taskcenter'] }],
  'tasks.kind': [{ key: 'tasks.kinds.{}', file: 'src/custom/taskcenter/task-center-page.tsx' }],
  'tasks.status': [{ key: 'tasks.statuses.{}', file: 'src/custom/taskcenter/task-center-page.tsx' }],
};

/** Constrained columns the console never words, and why. */
const NOT_SHOWN: Record<string, string> = {
  'accounts.status': 'shown as the Enabled switch, not as a word',
  'api_logs.method': 'HTTP methods are shown as they are (GET, POST …), like in every API tool',
  'autoflow_rules.origin': 'internal: where a rule was made, not shown',
  'autoflow_scope_files.kind': 'internal: the scope uploader knows which list it sent',
  'brands.variant': "a brand's look, chosen by the host, never shown as a word",
  'bundle_orders.throttle_kbps': 'a number, shown with its unit',
  'dashboard_snapshots.kind': 'internal cache of the dashboard',
  'dashboard_snapshots.view': 'internal cache of the dashboard',
  'files.kind': 'internal: which job made a stored file',
  'invoice_settles.kind': 'a deposit settle is shown as the "From the deposit" tag, a payment by its reference',
  'invoices.origin': 'internal: who made an invoice (seed, job, admin)',
  'live_events.type': "internal: the live stream's channels",
  'memberships.status': 'shown as the pending invite mark, not as a word',
  'notification_keys.disabled_reason': 'shown as its own sentence (developer.disabledFailing)',
  'notification_keys.status': "shown as the webhook's on/off switch",
  'sims.operation': "internal: the operation a SIM is in, shown as its action's words (simActions)",
  'subscription_groups.channel': "a group's channel is shown by its recipients (e-mail addresses or numbers)",
  'task_logs.level': "shown as the colour of the log line's tag",
  'webhook_deliveries.status': "shown as the delivery's HTTP code and the delivered/failed filter",
};

/** Closed sets that live in common/ or the server's catalogue rather than in a column. */
const LISTS: Array<{ name: string; values: readonly (string | number)[]; shown: Shown[] }> = [
  {
    name: 'autoflow trigger types',
    values: TRIGGER_TYPES,
    shown: [{ key: 'autoflow.trigger.enum.type.{}', file: 'src/custom/autoflow/rule-list.tsx', pages: ['autoflow'] }],
  },
  {
    name: 'autoflow trigger windows',
    values: WINDOWS,
    shown: [{ key: 'autoflow.trigger.enum.window.{}', file: 'src/custom/autoflow/words.ts', pages: ['autoflow'] }],
  },
  {
    name: 'autoflow trigger SIM statuses',
    values: RULE_SIM_STATUSES,
    shown: [
      { key: 'autoflow.trigger.enum.from.{}', file: 'src/custom/autoflow/words.ts', pages: ['autoflow'] },
      { key: 'autoflow.trigger.enum.to.{}', file: 'src/custom/autoflow/node-forms.tsx', via: "prefix: 'autoflow.trigger'", pages: ['autoflow'] },
    ],
  },
  {
    name: 'autoflow IMEI modes',
    values: IMEI_MODES,
    shown: [{ key: 'autoflow.trigger.enum.mode.{}', file: 'src/custom/autoflow/node-forms.tsx', via: "prefix: 'autoflow.trigger'", pages: ['autoflow'] }],
  },
  {
    name: 'autoflow scope types',
    values: SCOPE_TYPES,
    shown: [{ key: 'autoflow.scope.enum.type.{}', file: 'src/custom/autoflow/node-forms.tsx', via: "prefix: 'autoflow.scope'", pages: ['autoflow'] }],
  },
  {
    name: 'autoflow action types',
    values: ACTION_TYPES,
    shown: [{ key: 'autoflow.action.enum.type.{}', file: 'src/custom/autoflow/rule-list.tsx', pages: ['autoflow'] }],
  },
  {
    name: 'autoflow action outcomes',
    values: ACTION_OUTCOMES,
    shown: [{ key: 'autoflow.outcome.{}', file: 'src/custom/autoflow/trigger-page.tsx', pages: ['autoflow'] }],
  },
  { name: 'SIM sub-statuses', values: SUB_STATUSES, shown: [{ key: 'sims.enum.subStatus.{}', file: 'schemas/sims.json' }] },
  {
    name: 'SIM actions',
    values: SIM_ACTIONS.filter((a) => ['activate', 'suspend', 'resume', 'reset'].includes(a)),
    shown: [{ key: 'simActions.{}', file: 'src/custom/sim/sim-actions.tsx' }],
  },
  {
    name: 'notification kinds',
    values: NOTIFICATION_KINDS,
    shown: [{ key: 'notificationGroups.kinds.{}', file: 'src/custom/developer/notification-groups-page.tsx', pages: ['developer'] }],
  },
  {
    name: 'webhook event types',
    values: Object.keys(EVENT_CATALOGUE),
    shown: [{ key: 'eventTypes.{}', file: 'server/developer/notification-routes.ts', pages: ['server'] }],
  },
  {
    name: 'webhook event subtypes',
    values: [...new Set(Object.values(EVENT_CATALOGUE).flat())],
    shown: [{ key: 'eventSubtypes.{}', file: 'server/developer/notification-routes.ts', pages: ['server'] }],
  },
];

/** A constraint of the form `column = ANY (ARRAY[…])` (or `column = '…'`): its values. */
function enumOf(def: string): { column: string; values: string[] } | null {
  const m = /^CHECK \(\(\(?(\w+)\)? = ANY \(\(?ARRAY\[(.*)\]\)?\)\)\)$/.exec(def) ?? /^CHECK \(\((\w+) = ('[^']*'::text)\)\)$/.exec(def);
  if (!m) return null;
  return { column: m[1], values: [...m[2].matchAll(/'([^']*)'(?:::\w+)?|(-?\d+)/g)].map((v) => v[1] ?? v[2]) };
}

/** Which keys are missing for these values where the console shows them, in every language. */
function missing(values: readonly (string | number)[], shown: Shown[]): string[] {
  const out: string[] = [];
  for (const s of shown) {
    const prefix = s.key.slice(0, s.key.indexOf('{}'));
    // The file named really words the value with this key (a schema file: by its i18n prefix, see common/resources).
    const source = fs.readFileSync(s.file, 'utf8');
    const namespace = prefix.split('.')[0];
    const uses = s.file.endsWith('.json') ? source.includes(`"i18n": "${namespace}"`) : source.includes(s.via ?? prefix);
    if (!uses) out.push(`${s.file} does not word with ${prefix}*`);
    for (const lang of LANGUAGES) {
      const tree = words(lang, s.pages);
      for (const v of values) {
        const key = s.key.replace('{}', String(v));
        const text = at(tree, key);
        if (typeof text !== 'string' || !text.trim()) out.push(`${lang} ${key}`);
      }
    }
  }
  return out;
}

describe.each(DB_KINDS)('every closed set the server sends has words, on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let enums: Map<string, string[]>;

  beforeAll(async () => {
    ({ db, drop } = await freshDb(kind));
    const r = await db.query<{ t: string; def: string }>(
      `SELECT k.relname AS t, pg_get_constraintdef(c.oid) AS def FROM pg_constraint c JOIN pg_class k ON k.oid = c.conrelid
        WHERE c.contype = 'c' AND NOT k.relispartition AND k.relnamespace = current_schema()::regnamespace`,
    );
    enums = new Map();
    for (const row of r.rows) {
      const e = enumOf(row.def);
      if (e) enums.set(`${row.t}.${e.column}`, [...new Set([...(enums.get(`${row.t}.${e.column}`) ?? []), ...e.values])]);
    }
  });
  afterAll(() => drop());

  it('reads the constrained columns (the walk is not empty)', () => {
    for (const c of ['sim_events.type', 'sims.status', 'tasks.kind', 'tasks.status', 'sms_records.status', 'invoices.status', 'autoflow_rules.trigger'])
      expect([...enums.keys()]).toContain(c);
  });

  it('each constrained column is either worded where shown or named as never shown', () => {
    const unplaced = [...enums.keys()].filter((c) => !(c in SHOWN) && !(c in NOT_SHOWN)).sort();
    expect(unplaced).toEqual([]);
    const stale = [...Object.keys(SHOWN), ...Object.keys(NOT_SHOWN)].filter((c) => !enums.has(c)).sort();
    expect(stale).toEqual([]);
  });

  it('each value of each shown column has words in en-US, zh-CN, zh-TW and es-ES', () => {
    const gaps = Object.entries(SHOWN).flatMap(([column, shown]) => missing(enums.get(column) ?? [], shown).map((m) => `${column}: ${m}`));
    expect(gaps).toEqual([]);
  });
});

describe('closed sets from common/ and the event catalogue', () => {
  it.each(LISTS.map((l) => [l.name, l] as const))('%s have words in every language', (_name, list) => {
    expect(missing(list.values, list.shown)).toEqual([]);
  });
});

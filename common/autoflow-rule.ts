/**
 * The autoflow rule (SPEC.md sections 3, 5 and 9): one JSON document, one JSON Schema (draft-07). The server
 * validates create and update bodies with it (server/autoflow/rule-routes.ts) and the console's builder renders its
 * side-panel forms from it with RJSF, so a range lives here once. Conditions depend on the trigger's type and on the
 * data unit through allOf/if/then, which ajv reports at the exact field (trigger.threshold: must be at most 1048576)
 * and RJSF resolves as the form changes. What a schema cannot say (an ICCID's Luhn digit and its organisation,
 * duplicates by line, a time not earlier than now, the name taken, the maximum count) the server checks after it.
 */
import { EMAIL_PATTERN, LIMITS } from './limits.js';

/** What can start a rule (SPEC.md section 5, Autoflow). */
export const TRIGGER_TYPES = [
  'data_usage',
  'data_usage_percent',
  'sms_mo',
  'sms_mt',
  'status_change',
  'expiry_reminder',
  'imei_change',
  'no_connection',
  'network_change',
  'country_change',
] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** Data thresholds are whole numbers of a unit: KB 1-1,073,741,824, MB 1-1,048,576, GB 1-1024 (all 1 TB). */
export const DATA_UNITS = { KB: 1_073_741_824, MB: 1_048_576, GB: 1024 } as const;
export type DataUnit = keyof typeof DATA_UNITS;
/** Usage is counted in the bundle cycle or in a rolling 24 hours. */
export const WINDOWS = ['cycle', 'rolling_24h'] as const;
/** The ranges of SPEC.md section 5. */
export const TRIGGER_RANGES = {
  percent: { min: 1, max: 200 },
  smsMo: { min: 1, max: 200 },
  smsMt: { min: 1, max: 1000 },
  expiryDays: { min: LIMITS.expiryReminderDays.min, max: LIMITS.expiryReminderDays.max },
  /** No connection for N hours: 1 hour to 30 days (ours; SPEC.md leaves it open, docs/decisions.md). */
  noConnectionHours: { min: 1, max: 720 },
} as const;
/** Status-change triggers name from and to statuses (SPEC.md section 4). */
export const RULE_SIM_STATUSES = ['any', 'pre_activated', 'active', 'paused', 'expired', 'terminated'] as const;
export const IMEI_MODES = ['any', 'outside_list'] as const;

/** Which SIMs a rule watches. */
export const SCOPE_TYPES = ['all', 'iccids', 'file', 'tags', 'product_type', 'pool'] as const;
export type ScopeType = (typeof SCOPE_TYPES)[number];
export const PRODUCT_TYPES = ['consumer', 'industrial', 'automotive'] as const;

/** What a rule does, in order. */
export const ACTION_TYPES = ['suspend', 'resume', 'throttle', 'tag', 'sms', 'email', 'webhook'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
export const THROTTLE_KBPS = [128, 256] as const;
/** At most this many actions in one rule (ours: one of each kind and a few repeats; docs/decisions.md). */
export const MAX_ACTIONS = 10;

/** What became of one action of a run (server/autoflow/actions.ts). */
export const ACTION_OUTCOMES = ['pending', 'queued', 'sending', 'retrying', 'done', 'failed', 'skipped'] as const;
export type ActionOutcome = (typeof ACTION_OUTCOMES)[number];

/** A rule's status: deleted rules are kept (run history, change records) but never listed or run. */
export const RULE_STATUSES = ['enabled', 'disabled', 'deleted'] as const;
export type RuleStatus = (typeof RULE_STATUSES)[number];

const ICCID = { type: 'string', minLength: 1, maxLength: 20 } as const;
const IMEI = { type: 'string', minLength: 1, maxLength: 16 } as const;
const TAG = { type: 'string', minLength: 1, maxLength: LIMITS.tags.length } as const;
const ID = { type: 'string', pattern: '^[A-Za-z0-9]{18,22}$' } as const;
const when = (key: string, value: string, then: Record<string, unknown>) => ({ if: { properties: { [key]: { const: value } }, required: [key] }, then });

/** The trigger and its condition (one object: its type and the fields that type needs). */
export const TRIGGER_SCHEMA = {
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: TRIGGER_TYPES },
    // Its range depends on the unit: each unit's branch below says both ends (checked before this outer bound), so a
    // refusal names the unit's whole range.
    threshold: { type: 'integer', minimum: 1, maximum: DATA_UNITS.KB },
    unit: { type: 'string', enum: Object.keys(DATA_UNITS) },
    window: { type: 'string', enum: WINDOWS },
    percent: { type: 'integer', minimum: TRIGGER_RANGES.percent.min, maximum: TRIGGER_RANGES.percent.max },
    // MO and MT counts have ranges of their own (below, checked before this outer bound).
    count: { type: 'integer', minimum: 1, maximum: TRIGGER_RANGES.smsMt.max },
    from: { type: 'string', enum: RULE_SIM_STATUSES },
    to: { type: 'string', enum: RULE_SIM_STATUSES },
    days: { type: 'integer', minimum: TRIGGER_RANGES.expiryDays.min, maximum: TRIGGER_RANGES.expiryDays.max },
    mode: { type: 'string', enum: IMEI_MODES },
    imeis: { type: 'array', minItems: 1, maxItems: LIMITS.autoflowManualIccids, items: IMEI },
    imeiFileToken: { type: 'string', minLength: 1, maxLength: 64 },
    imeiFileSha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    hours: { type: 'integer', minimum: TRIGGER_RANGES.noConnectionHours.min, maximum: TRIGGER_RANGES.noConnectionHours.max },
    countries: { type: 'array', maxItems: 300, uniqueItems: true, items: { type: 'string', pattern: '^[A-Z]{2}$' } },
  },
  allOf: [
    when('type', 'data_usage', {
      required: ['threshold', 'unit', 'window'],
      allOf: [
        when('unit', 'KB', { properties: { threshold: { type: 'integer', minimum: 1, maximum: DATA_UNITS.KB } } }),
        when('unit', 'MB', { properties: { threshold: { type: 'integer', minimum: 1, maximum: DATA_UNITS.MB } } }),
        when('unit', 'GB', { properties: { threshold: { type: 'integer', minimum: 1, maximum: DATA_UNITS.GB } } }),
      ],
    }),
    when('type', 'data_usage_percent', { required: ['percent'] }),
    when('type', 'sms_mo', {
      required: ['count', 'window'],
      properties: { count: { type: 'integer', minimum: TRIGGER_RANGES.smsMo.min, maximum: TRIGGER_RANGES.smsMo.max } },
    }),
    when('type', 'sms_mt', { required: ['count', 'window'], properties: { count: { type: 'integer', minimum: 1, maximum: TRIGGER_RANGES.smsMt.max } } }),
    when('type', 'status_change', { required: ['from', 'to'] }),
    when('type', 'expiry_reminder', { required: ['days'] }),
    when('type', 'imei_change', {
      required: ['mode'],
      allOf: [when('mode', 'outside_list', { anyOf: [{ required: ['imeis'] }, { required: ['imeiFileToken', 'imeiFileSha256'] }] })],
    }),
    when('type', 'no_connection', { required: ['hours'] }),
  ],
} as const;

/**
 * An object whose `type`, one of `types`, decides which of its other properties it requires (`requires`, by type; a
 * type not named there requires none).
 */
function byType<P extends Record<string, unknown>>(types: readonly string[], properties: P, requires: Record<string, readonly string[]>) {
  return {
    type: 'object',
    required: ['type'],
    additionalProperties: false,
    properties: { type: { type: 'string', enum: types }, ...properties },
    allOf: Object.entries(requires).map(([value, required]) => when('type', value, { required })),
  } as const;
}

/** Which SIMs the rule watches; a file's ICCIDs are validated first (a token bound to the file's SHA-256). */
export const SCOPE_SCHEMA = byType(
  SCOPE_TYPES,
  {
    iccids: { type: 'array', minItems: 1, maxItems: LIMITS.autoflowManualIccids, items: ICCID },
    fileToken: { type: 'string', minLength: 1, maxLength: 64 },
    fileSha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    fileName: { type: 'string', minLength: 1, maxLength: LIMITS.uploadFileNameLength },
    tags: { type: 'array', minItems: 1, maxItems: LIMITS.tags.count, uniqueItems: true, items: TAG },
    productType: { type: 'string', enum: PRODUCT_TYPES },
    poolId: ID,
  } as const,
  { iccids: ['iccids'], file: ['fileToken', 'fileSha256'], tags: ['tags'], product_type: ['productType'], pool: ['poolId'] },
);

/** One action; its type decides which other field it needs. */
export const ACTION_SCHEMA = byType(
  ACTION_TYPES,
  {
    speedKbps: { type: 'integer', enum: THROTTLE_KBPS },
    tag: TAG,
    text: { type: 'string', minLength: 1, maxLength: LIMITS.smsText },
    emails: {
      type: 'array',
      minItems: 1,
      maxItems: LIMITS.emailsPerGroup,
      uniqueItems: true,
      items: { type: 'string', maxLength: LIMITS.email, pattern: EMAIL_PATTERN, 'x-rule': 'email' },
    },
  } as const,
  { throttle: ['speedKbps'], tag: ['tag'], sms: ['text'], email: ['emails'] },
);

/** The rule document: what create takes, what update takes beside the rule's id, what detail answers (with more). */
export const AUTOFLOW_RULE_SCHEMA = {
  type: 'object',
  required: ['name', 'trigger', 'scope', 'actions'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: LIMITS.autoflowName.min, maxLength: LIMITS.autoflowName.max, pattern: '\\S' },
    trigger: TRIGGER_SCHEMA,
    scope: SCOPE_SCHEMA,
    actions: { type: 'array', minItems: 1, maxItems: MAX_ACTIONS, items: ACTION_SCHEMA },
    activationAt: { type: ['string', 'null'], format: 'date-time' },
    expiryAt: { type: ['string', 'null'], format: 'date-time' },
    status: { type: 'string', enum: ['enabled', 'disabled'] },
  },
} as const;

export interface RuleTrigger {
  type: TriggerType;
  threshold?: number;
  unit?: DataUnit;
  window?: (typeof WINDOWS)[number];
  percent?: number;
  count?: number;
  from?: (typeof RULE_SIM_STATUSES)[number];
  to?: (typeof RULE_SIM_STATUSES)[number];
  days?: number;
  mode?: (typeof IMEI_MODES)[number];
  imeis?: string[];
  imeiFileToken?: string;
  imeiFileSha256?: string;
  hours?: number;
  countries?: string[];
}
export interface RuleScope {
  type: ScopeType;
  iccids?: string[];
  fileToken?: string;
  fileSha256?: string;
  fileName?: string;
  tags?: string[];
  productType?: (typeof PRODUCT_TYPES)[number];
  poolId?: string;
}
export interface RuleAction {
  type: ActionType;
  speedKbps?: (typeof THROTTLE_KBPS)[number];
  tag?: string;
  text?: string;
  emails?: string[];
}
/** The document a person writes. */
export interface AutoflowRuleDocument {
  name: string;
  trigger: RuleTrigger;
  scope: RuleScope;
  actions: RuleAction[];
  activationAt?: string | null;
  expiryAt?: string | null;
  status?: 'enabled' | 'disabled';
}

/** Who changed a rule, how, and the rule's parts before and after (its audit rows), as the change records call answers. */
export interface ChangeRecord {
  id: string;
  ruleId: string | null;
  at: string;
  action: string;
  accountId: string | null;
  accountEmail: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** A SIM in a rule's scope, as the scope preview answers it. */
export interface ScopeSim {
  iccid: string;
  status: string;
  productType: string;
  tags: string[];
  poolId: string | null;
}

/** The condition fields each trigger type uses (besides its type): what the builder shows and what a save keeps. */
export const TRIGGER_FIELDS: Record<TriggerType, ReadonlyArray<keyof RuleTrigger>> = {
  data_usage: ['threshold', 'unit', 'window'],
  data_usage_percent: ['percent'],
  sms_mo: ['count', 'window'],
  sms_mt: ['count', 'window'],
  status_change: ['from', 'to'],
  expiry_reminder: ['days'],
  imei_change: ['mode', 'imeis', 'imeiFileToken', 'imeiFileSha256'],
  no_connection: ['hours'],
  network_change: [],
  country_change: ['countries'],
};
/** The fields each scope type uses besides its type. */
export const SCOPE_FIELDS: Record<ScopeType, ReadonlyArray<keyof RuleScope>> = {
  all: [],
  iccids: ['iccids'],
  file: ['fileToken', 'fileSha256', 'fileName'],
  tags: ['tags'],
  product_type: ['productType'],
  pool: ['poolId'],
};
/** The fields each action type uses besides its type. */
export const ACTION_FIELDS: Record<ActionType, ReadonlyArray<keyof RuleAction>> = {
  suspend: [],
  resume: [],
  webhook: [],
  throttle: ['speedKbps'],
  tag: ['tag'],
  sms: ['text'],
  email: ['emails'],
};

/** The trigger's condition as stored beside its type (the fields other than type). */
export function conditionOf(trigger: RuleTrigger): Omit<RuleTrigger, 'type'> {
  const { type: _type, ...condition } = trigger;
  return condition;
}

/** Lines (1-based) that repeat an earlier value, e.g. in a list of ICCIDs; values compared as given. */
export function duplicateLines(values: readonly string[]): Array<{ line: number; value: string }> {
  const seen = new Set<string>();
  const out: Array<{ line: number; value: string }> = [];
  values.forEach((value, i) => {
    if (seen.has(value)) out.push({ line: i + 1, value });
    seen.add(value);
  });
  return out;
}

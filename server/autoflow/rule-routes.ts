/**
 * Autoflow rules (SPEC.md section 7, Autoflow), under the rule engine's service:
 *
 * - GET    /auto_flow/cube/rules                  the organisation's rules (not deleted): search by name, filters
 * - POST   /auto_flow/cube/rules                  create (JSON, or multipart with the document in the field "rule")
 * - PUT    /auto_flow/cube/rules                  update (the document and its id; JSON or multipart likewise)
 * - GET    /auto_flow/cube/rules/:id/detail       one rule
 * - POST   /auto_flow/cube/rules/impact           how many SIMs a rule document would act on now (read only; asked before enabling)
 * - PUT    /auto_flow/cube/rules/:id/:action      enable or disable
 * - DELETE /auto_flow/cube/rules/:id              delete (kept as status deleted: its name is free again)
 * - GET    /auto_flow/cube/rules/triggers/:id      a rule's run history (30 days): when, which SIM, what, each action's outcome
 * - GET    /auto_flow/cube/rules/:id/trigger_actions  the rule's trigger and actions, each action's outcomes over its runs
 * - GET    /auto_flow/cube/sims                   the SIMs in a rule's scope (?ruleId=), by ICCID; /sims/download as CSV
 * - POST   /auto_flow/cube/try_it_out/body        the exact webhook body the rule would send, for a SIM in its scope
 * - POST   /auto_flow/cube/try_it_out/send        that body sent at once to the caller's webhook, with the answer
 * - GET    /auto_flow/cube/change_records         who changed what, before and after (the audit rows of the rules)
 * - GET    /auto_flow/cube/countries              the countries a country-change trigger may name, in the caller's language
 * - GET    /auto_flow/cube/pools                  the organisation's shared pools a pool scope may name (id and name)
 *
 * Bodies are validated by common/autoflow-rule.ts's schema, then by rule-checks.ts and the organisation's facts.
 * Without the autoflow write right a write answers SPEC.md section 8's 400 "You do not have this permission, please
 * contact your admin!" (server/http/context.ts).
 */
import type { FastifyRequest } from 'fastify';
import {
  AUTOFLOW_RULE_SCHEMA,
  ACTION_FIELDS,
  ACTION_OUTCOMES,
  ACTION_TYPES,
  SCOPE_FIELDS,
  TRIGGER_FIELDS,
  TRIGGER_TYPES,
  type ActionType,
  type AutoflowRuleDocument,
  type ScopeType,
  type TriggerType,
} from '../../common/autoflow-rule.js';
import { ISO_COUNTRIES } from '../../common/countries.js';
import { CODES } from '../../common/errors.js';
import { translate } from '../../common/i18n.js';
import { LANGUAGES, LIMITS } from '../../common/limits.js';
import type { Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { arrayOf, ID_PARAMS, ID_TEXT, idsIn, NULLABLE_TEXT, obj, pagedQuery, subjectRoutes, typed } from '../http/shapes.js';
import { badLines, checkDocument } from './rule-checks.js';
import { listRuns, triggerActions } from './run-repo.js';
import { simsMeetingNow } from './schedule.js';
import { RULE_FIRED, ruleFiredBody, ruleFiredData, sampleEvent } from './webhook-body.js';
import { queueOnce } from '../developer/webhooks.js';
import {
  changeRecords,
  countRulesLocked,
  ruleEverExisted,
  simsInScope,
  webhookOf,
  findRule,
  insertRule,
  listRules,
  nameTaken,
  ownIccids,
  poolChoices,
  poolExists,
  scopeFile,
  setRuleStatus,
  updateRule,
  type RuleRecord,
  type RuleListQuery,
} from './rule-repo.js';
import { PAGE_NUMBERS, pageResponse } from '../http/page-response.js';

const SUBJECT = 'autoflow-cube' as const;
/** What a rule's change records call the entity (audit_log.entity). */
export const AUDIT_ENTITY = 'autoflow_rule';

const anyObject = { type: 'object', additionalProperties: true } as const;
const ruleSchema = typed({
  id: 'string',
  name: 'string',
  trigger: anyObject,
  scope: anyObject,
  actions: arrayOf(anyObject),
  status: 'string',
  activationAt: NULLABLE_TEXT,
  expiryAt: NULLABLE_TEXT,
  origin: 'string',
  createdBy: NULLABLE_TEXT,
  creatorEmail: NULLABLE_TEXT,
  updatedBy: NULLABLE_TEXT,
  lastRunAt: NULLABLE_TEXT,
  runCount: 'integer',
  createdAt: 'string',
  updatedAt: 'string',
});
const pageOf = (items: object) => pageResponse(items, PAGE_NUMBERS);
/** Counts by name (an outcome's, a status's). */
const COUNTS = { type: 'object', additionalProperties: { type: 'integer' } };

const updateBody = {
  ...AUTOFLOW_RULE_SCHEMA,
  required: ['id', ...AUTOFLOW_RULE_SCHEMA.required],
  properties: { id: ID_TEXT, ...AUTOFLOW_RULE_SCHEMA.properties },
};

/** Field labels for the document's nested paths (trigger.threshold reads "Threshold"), in every language. */
const LABELS = Object.fromEntries(
  LANGUAGES.map((lang) => {
    const label = (key: string) => translate(lang, `fields.${key}`);
    const out: Record<string, string> = {};
    // A status change's from and to are statuses, not the dates of a range.
    const triggerKey: Record<string, string> = { type: 'trigger', from: 'statusFrom', to: 'statusTo', imeiFileToken: 'imeis', imeiFileSha256: 'imeis' };
    for (const k of Object.keys(AUTOFLOW_RULE_SCHEMA.properties.trigger.properties)) out[`trigger.${k}`] = label(triggerKey[k] ?? k);
    for (const k of Object.keys(AUTOFLOW_RULE_SCHEMA.properties.scope.properties))
      out[`scope.${k}`] = k === 'type' ? label('scope') : k === 'fileName' ? label('fileToken') : label(k);
    for (let i = 0; i < LIMITS.tags.count; i++) out[`scope.tags.${i}`] = label('tags');
    for (let i = 0; i < AUTOFLOW_RULE_SCHEMA.properties.actions.maxItems; i++) {
      const action = (what: string) => `${what} (${label('actions')} ${i + 1})`;
      for (const k of Object.keys(AUTOFLOW_RULE_SCHEMA.properties.actions.items.properties))
        out[`actions.${i}.${k}`] = action(k === 'type' ? label('type') : label(k));
      for (let j = 0; j < LIMITS.emailsPerGroup; j++) out[`actions.${i}.emails.${j}`] = action(label('emails'));
    }
    return [lang, out];
  }),
);

/** A data threshold is said with its unit ("must be between 1 and 1,048,576 MB"). */
const UNITS = { 'trigger.threshold': (body: unknown) => (body as { trigger?: { unit?: unknown } } | null)?.trigger?.unit as string | undefined };

/** The organisation's facts about a document: ICCIDs its own, the scope file unchanged, the pool its own. */
async function checkFacts(q: Queryable, orgId: string, doc: AutoflowRuleDocument): Promise<void> {
  const scope = doc.scope;
  if (scope.type === 'iccids' && scope.iccids) {
    const own = await ownIccids(q, orgId, scope.iccids);
    const foreign = scope.iccids.map((value, i) => ({ line: i + 1, value })).filter((l) => !own.has(l.value));
    if (foreign.length) throw badLines('scope.iccids', 'iccidForeign', foreign);
  }
  if (scope.type === 'file') {
    const file = await scopeFile(q, orgId, scope.fileToken!);
    if (!file) throw invalid('scope.fileToken', 'scopeFileUnknown');
    if (file.sha256 !== scope.fileSha256) throw invalid('scope.fileSha256', 'scopeFileModified');
  }
  const t = doc.trigger;
  if (t.type === 'imei_change' && t.mode === 'outside_list' && t.imeiFileToken) {
    const file = await scopeFile(q, orgId, t.imeiFileToken, 'imei');
    if (!file) throw invalid('trigger.imeiFileToken', 'scopeFileUnknown');
    if (file.sha256 !== t.imeiFileSha256) throw invalid('trigger.imeiFileSha256', 'scopeFileModified');
  }
  if (scope.type === 'pool' && !(await poolExists(q, orgId, scope.poolId!))) throw invalid('scope.poolId', 'poolUnknown');
}

/** Only the fields the document's type uses are kept: a scope of all SIMs keeps no stale ICCID list. */
function tidy(doc: AutoflowRuleDocument): AutoflowRuleDocument {
  // A name is kept without the spaces around it (the console trims it too; names compare trimmed, rule-repo.ts).
  // Each part keeps its type and the fields its type uses (common/autoflow-rule.ts), nothing left from another type.
  const keep = <T extends { type: string }>(part: T, fields: ReadonlyArray<string>): T =>
    Object.fromEntries(Object.entries(part).filter(([k]) => k === 'type' || fields.includes(k))) as T;
  const scope = keep(doc.scope, SCOPE_FIELDS[doc.scope.type as ScopeType]);
  const actions = doc.actions.map((a) => keep(a, ACTION_FIELDS[a.type as ActionType]));
  const trigger = keep(doc.trigger, TRIGGER_FIELDS[doc.trigger.type as TriggerType]);
  if (trigger.mode === 'any') for (const k of ['imeis', 'imeiFileToken', 'imeiFileSha256'] as const) delete trigger[k];
  return { ...doc, name: doc.name.trim(), trigger, scope, actions };
}

const nameExists = () => new ApiError(400, CODES.autoflowNameExists, { field: 'name' }, 'errors.autoflowNameExists', { field: 'name', rule: 'unique' });

/** The document as its change record keeps it. */
const recordOf = (r: RuleRecord) => ({
  name: r.name,
  trigger: r.trigger,
  scope: r.scope,
  actions: r.actions,
  status: r.status,
  activationAt: r.activationAt,
  expiryAt: r.expiryAt,
});

/** EXAMPLE ICCID for a rule whose scope holds no SIM yet (valid: Luhn). */
const EXAMPLE_ICCID = '89490200001234567819';

/** The body the rule's webhook action would send now, for the first SIM in its scope. */
async function tryItOutBody(req: FastifyRequest, ruleId: string) {
  const auth = req.requireAuth();
  const rule = await requireRule(req.server.db, auth.orgId, ruleId);
  const first = await simsInScope(req.server.db, auth.orgId, rule.scope, { limit: 1, offset: 0 }, 1);
  const iccid = first.items[0]?.iccid ?? EXAMPLE_ICCID;
  const now = new Date();
  return ruleFiredBody(ruleFiredData(rule, iccid, sampleEvent(rule.trigger, iccid, now), null), now);
}
const RULE_ID = idsIn('ruleId');
const bodySchema = typed({ type: 'string', subtype: 'string', timestamp: 'string', data: anyObject });

/** Where a rule was made: the public API, a template (the scene header), or the console. */
function originOf(req: FastifyRequest): string {
  if (req.routeOptions.url?.startsWith('/api/public/')) return 'api';
  return req.headers.scene === 'template' ? 'template' : 'console';
}

async function requireRule(q: Queryable, orgId: string, id: string, forUpdate = false): Promise<RuleRecord> {
  const rule = await findRule(q, orgId, id, forUpdate);
  if (!rule) throw notFound('autoflowRule', id);
  return rule;
}

const route = subjectRoutes('rule', SUBJECT);
/** Create or update: the rule document as JSON or in the multipart field "rule", its nested fields labelled (LABELS). */
const documentRoute = (method: 'POST' | 'PUT', action: 'create' | 'update', body: object, handler: RouteDef['handler']) =>
  route(method, '/auto_flow/cube/rules', action, { multipartJson: 'rule', labels: LABELS, units: UNITS, schema: { body, response: ruleSchema }, handler });

export const ruleRoutes = defineRoutes([
  route('GET', '/auto_flow/cube/rules', 'read', {
    schema: {
      querystring: pagedQuery({
        search: { type: 'string', maxLength: LIMITS.autoflowName.max },
        status: { type: 'string', enum: ['enabled', 'disabled'] },
        trigger: { type: 'string', enum: TRIGGER_TYPES },
        actionType: { type: 'string', enum: ACTION_TYPES },
      }),
      response: pageOf(ruleSchema),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const query = req.query as RuleListQuery;
      return listRules(req.server.db, auth.orgId, { ...query, search: query.search?.trim() || undefined });
    },
  }),
  documentRoute('POST', 'create', AUTOFLOW_RULE_SCHEMA, async (req) => {
    const auth = req.requireAuth();
    const doc = tidy(req.body as AutoflowRuleDocument);
    checkDocument(doc, new Date());
    return req.server.db.tx(async (q) => {
      const count = await countRulesLocked(q, auth.orgId);
      const limit = req.server.config.autoflowMaxRules;
      if (count >= limit) throw new ApiError(400, CODES.maxAutoflows, { limit }, 'errors.maxAutoflows', { limit });
      if (await nameTaken(q, auth.orgId, doc.name, null)) throw nameExists();
      await checkFacts(q, auth.orgId, doc);
      const rule = await insertRule(q, auth.orgId, newId(), auth.accountId, doc, originOf(req));
      await audit(q, req, { action: 'create', entity: AUDIT_ENTITY, entityId: rule.id, after: recordOf(rule) });
      return rule;
    });
  }),
  documentRoute('PUT', 'update', updateBody, async (req) => {
    const auth = req.requireAuth();
    const { id, ...rest } = req.body as AutoflowRuleDocument & { id: string };
    const doc = tidy(rest);
    return req.server.db.tx(async (q) => {
      const before = await requireRule(q, auth.orgId, id, true);
      checkDocument(doc, new Date(), before);
      if (await nameTaken(q, auth.orgId, doc.name, id)) throw nameExists();
      await checkFacts(q, auth.orgId, doc);
      const rule = await updateRule(q, auth.orgId, id, auth.accountId, doc);
      await audit(q, req, { action: 'update', entity: AUDIT_ENTITY, entityId: id, before: recordOf(before), after: recordOf(rule) });
      return rule;
    });
  }),
  route('POST', '/auto_flow/cube/rules/impact', 'read', {
    // What enabling this document would do now, asked before a rule that suspends, throttles or messages SIMs is
    // enabled: for a scheduled trigger, the SIMs meeting its condition now (the engine's own evaluation query, read
    // only); for an event trigger, the SIMs it watches (each is acted on when its event comes).
    labels: LABELS,
    units: UNITS,
    schema: { body: AUTOFLOW_RULE_SCHEMA, response: typed({ count: 'integer', basis: 'string' }) },
    handler: async (req) => {
      const auth = req.requireAuth();
      const doc = tidy(req.body as AutoflowRuleDocument);
      // Its times do not matter here (an enabled rule's activation may have passed): only what it watches and does.
      checkDocument({ ...doc, activationAt: null, expiryAt: null }, new Date());
      await checkFacts(req.server.db, auth.orgId, doc);
      const now = await simsMeetingNow(req.server.db, { orgId: auth.orgId, trigger: doc.trigger, scope: doc.scope }, new Date());
      if (now !== null) return { count: now, basis: 'now' };
      return { count: (await simsInScope(req.server.db, auth.orgId, doc.scope, { limit: 0, offset: 0 })).total, basis: 'scope' };
    },
  }),
  route('GET', '/auto_flow/cube/rules/:id/detail', 'read', {
    schema: { params: ID_PARAMS, response: ruleSchema },
    handler: async (req) => requireRule(req.server.db, req.requireAuth().orgId, (req.params as { id: string }).id),
  }),
  route('PUT', '/auto_flow/cube/rules/:id/:action', 'update', {
    schema: {
      params: obj({ id: ID_TEXT, action: { type: 'string', enum: ['enable', 'disable'] } }, ['id', 'action']),
      response: ruleSchema,
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id, action } = req.params as { id: string; action: 'enable' | 'disable' };
      const status = action === 'enable' ? 'enabled' : 'disabled';
      return req.server.db.tx(async (q) => {
        const before = await requireRule(q, auth.orgId, id, true);
        if (before.status === status) return before;
        await setRuleStatus(q, auth.orgId, id, auth.accountId, status);
        await audit(q, req, { action, entity: AUDIT_ENTITY, entityId: id, before: { status: before.status }, after: { status } });
        return requireRule(q, auth.orgId, id);
      });
    },
  }),
  route('DELETE', '/auto_flow/cube/rules/:id', 'delete', {
    schema: { params: ID_PARAMS, response: typed({ id: 'string', status: 'string' }) },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      return req.server.db.tx(async (q) => {
        const before = await requireRule(q, auth.orgId, id, true);
        await setRuleStatus(q, auth.orgId, id, auth.accountId, 'deleted');
        await audit(q, req, { action: 'delete', entity: AUDIT_ENTITY, entityId: id, before: recordOf(before), after: { status: 'deleted' } });
        return { id, status: 'deleted' };
      });
    },
  }),
  route('GET', '/auto_flow/cube/rules/triggers/:id', 'read', {
    schema: {
      params: ID_PARAMS,
      querystring: pagedQuery({
        status: { type: 'string', enum: ['pending', 'success', 'failed', 'skipped'] },
        iccid: { type: 'string', minLength: 1, maxLength: 20 },
        // Runs with an action of this type and/or this outcome.
        actionType: { type: 'string', enum: [...ACTION_TYPES] },
        actionOutcome: { type: 'string', enum: [...ACTION_OUTCOMES] },
      }),
      response: pageOf(
        typed({ id: 'string', ruleId: 'string', iccid: NULLABLE_TEXT, trigger: 'string', status: 'string', detail: {}, actions: {}, at: 'string' }),
      ),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      // A deleted rule's runs stay readable for their 30 days; another organisation's rule is not found.
      if (!(await ruleEverExisted(req.server.db, auth.orgId, id))) throw notFound('autoflowRule', id);
      return listRuns(req.server.db, auth.orgId, id, req.query as Parameters<typeof listRuns>[3]);
    },
  }),
  route('GET', '/auto_flow/cube/rules/:id/trigger_actions', 'read', {
    schema: {
      params: ID_PARAMS,
      querystring: obj({ runId: { type: 'string', pattern: '^[0-9]{1,18}$' } }),
      response: typed({
        ruleId: 'string',
        trigger: anyObject,
        actions: arrayOf(typed({ index: 'integer', type: 'string', params: anyObject, outcomes: COUNTS, lastAt: NULLABLE_TEXT })),
        runs: COUNTS,
        run: { ...typed({ id: 'string', iccid: NULLABLE_TEXT, status: 'string', at: 'string', actions: {} }), type: ['object', 'null'] },
      }),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const rule = await requireRule(req.server.db, auth.orgId, id);
      const { runId } = req.query as { runId?: string };
      const answer = await triggerActions(
        req.server.db,
        auth.orgId,
        { id: rule.id, trigger: rule.trigger as unknown as Record<string, unknown>, actions: rule.actions as unknown as Array<Record<string, unknown>> },
        runId,
      );
      if (runId && !answer.run) throw notFound('autoflowRun', runId);
      return answer;
    },
  }),
  route('GET', '/auto_flow/cube/sims', 'read', {
    schema: {
      querystring: pagedQuery({ ruleId: ID_TEXT }, ['ruleId']),
      response: pageOf(typed({ iccid: 'string', status: 'string', productType: 'string', tags: arrayOf({ type: 'string' }), poolId: NULLABLE_TEXT })),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { ruleId, page, pageSize } = req.query as { ruleId: string; page: number; pageSize: number };
      const rule = await requireRule(req.server.db, auth.orgId, ruleId);
      return { ...(await simsInScope(req.server.db, auth.orgId, rule.scope, { limit: pageSize, offset: (page - 1) * pageSize })), page, pageSize };
    },
  }),
  route('GET', '/auto_flow/cube/sims/download', 'read', {
    raw: true,
    schema: { querystring: RULE_ID, response: {} },
    handler: async (req, reply) => {
      const auth = req.requireAuth();
      const rule = await requireRule(req.server.db, auth.orgId, (req.query as { ruleId: string }).ruleId);
      const { items, total } = await simsInScope(req.server.db, auth.orgId, rule.scope, { limit: LIMITS.exportMax, offset: 0 });
      if (total > LIMITS.exportMax) throw new ApiError(400, CODES.badRequest, { max: LIMITS.exportMax.toLocaleString(req.lang) }, 'errors.exportTooMany');
      const label = (k: string) => translate(req.lang, `fields.${k}`);
      // Tags are joined with ";" as the SIM info upload writes them; no cell starts with a formula character.
      const cell = (raw: string) => {
        const v = raw.replace(/^([=+\-@])/, "'$1");
        return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
      };
      const lines = [
        ['ICCID', label('status'), label('productType'), label('tags'), label('poolId')],
        ...items.map((s) => [s.iccid, s.status, s.productType, s.tags.join(';'), s.poolId ?? '']),
      ];
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="autoflow-${rule.id}-sims.csv"`)
        .header('cache-control', 'no-store')
        .send(`\uFEFF${lines.map((l) => l.map(cell).join(',')).join('\r\n')}\r\n`);
    },
  }),
  route('POST', '/auto_flow/cube/try_it_out/body', 'read', {
    schema: { body: RULE_ID, response: bodySchema },
    handler: async (req) => tryItOutBody(req, (req.body as { ruleId: string }).ruleId),
  }),
  route('POST', '/auto_flow/cube/try_it_out/send', 'update', {
    schema: {
      body: RULE_ID,
      response: typed({ body: bodySchema, logId: 'string', httpCode: ['integer', 'null'], error: NULLABLE_TEXT, delivered: 'boolean' }),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = await tryItOutBody(req, (req.body as { ruleId: string }).ruleId);
      const hook = await webhookOf(req.server.db, auth.orgId, auth.accountId);
      if (!hook?.webhookUrl) throw invalid('webhookUrl', 'required');
      const deliveryId = await req.server.db.tx((q) => queueOnce(q, { orgId: auth.orgId, id: hook.id }, { ...RULE_FIRED, body: JSON.stringify(body) }));
      const result = await req.server.webhooks.deliverNow(deliveryId);
      if (!result) throw new ApiError(409, CODES.conflict);
      return { body, ...result };
    },
  }),
  route('GET', '/auto_flow/cube/change_records', 'read', {
    schema: {
      querystring: pagedQuery({ ruleId: ID_TEXT }),
      response: pageOf(
        typed({
          id: 'string',
          ruleId: NULLABLE_TEXT,
          at: 'string',
          action: 'string',
          accountId: NULLABLE_TEXT,
          accountEmail: NULLABLE_TEXT,
          before: {},
          after: {},
        }),
      ),
    },
    handler: async (req) => changeRecords(req.server.db, req.requireAuth().orgId, req.query as { ruleId?: string; page: number; pageSize: number }),
  }),
  route('GET', '/auto_flow/cube/countries', 'read', {
    schema: { response: arrayOf(typed({ code: 'string', name: 'string' })) },
    handler: async (req) => {
      const names = new Intl.DisplayNames([req.lang], { type: 'region' });
      const collator = new Intl.Collator(req.lang);
      return [...ISO_COUNTRIES].map((code) => ({ code, name: names.of(code) ?? code })).sort((a, b) => collator.compare(a.name, b.name));
    },
  }),
  route('GET', '/auto_flow/cube/pools', 'read', {
    schema: { response: arrayOf(typed({ id: 'string', name: 'string' })) },
    // The builder's pool scope is a choice among these (read with the autoflow right: a rule's author may not manage pools).
    handler: async (req) => poolChoices(req.server.db, req.requireAuth().orgId),
  }),
]);

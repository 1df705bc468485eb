/**
 * Autoflow rules: the rule document of common/autoflow-rule.ts at every boundary of SPEC.md section 5 (both
 * sides of each range), the checks after the schema (Luhn, the organisation's ICCIDs, duplicates by line, times not
 * earlier than now, the name taken, the maximum count), the write right's refusal text, and the change records.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { luhnCheckDigit, makeIccid } from '../../common/iccid.js';
import { DEMO_POOL_ID, DEMO_RULE_ID, DEMO_RULE_NAME } from '../../server/db/seed-fleet.js';
import { call, DB_KINDS, DEMO, sessionHeaders, signedInSuite, signIn } from '../helper.js';

const RULES = '/api/rule/auto_flow/cube/rules';
type Doc = Record<string, unknown>;

/** A rule that passes every check; each test changes one thing. */
const base = (over: Doc = {}): Doc => ({
  name: `Rule ${Math.random().toString(36).slice(2, 10)}`,
  trigger: { type: 'data_usage', threshold: 50, unit: 'MB', window: 'cycle' },
  scope: { type: 'all' },
  actions: [{ type: 'suspend' }, { type: 'webhook' }],
  ...over,
});
const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

describe.each(DB_KINDS)('autoflow rules on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, operator: DEMO.operator, user: DEMO.user });
  let own: string[];
  let foreign: string;

  beforeAll(async () => {
    own = (await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM sims WHERE org_id = 'org-demo' ORDER BY iccid LIMIT 5")).rows.map((r) => r.iccid);
    foreign = (await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM sims WHERE org_id = 'org-other' ORDER BY iccid LIMIT 1")).rows[0].iccid;
  });

  const create = (doc: Doc, session = suite.admin, lang?: string) =>
    call(suite.t.app, session, { method: 'POST', url: RULES, payload: doc, headers: lang ? { language: lang } : {} });
  /** The refusal's message and data of a create that must fail with a 400. */
  const refused = async (doc: Doc) => {
    const res = await create(doc);
    expect(res.statusCode, res.body).toBe(400);
    return {
      message: res.json().status.message as string,
      data: res.json().data as { field: string; rule: string; lines?: Array<{ line: number; value: string }> },
    };
  };
  const accepted = async (doc: Doc) => {
    const res = await create(doc);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Doc & { id: string };
  };
  const trigger = (tr: Doc) => base({ trigger: tr });

  describe('name', () => {
    it('accepts 1 and 100 characters and refuses 0 and 101', async () => {
      await accepted(base({ name: 'n' }));
      await accepted(base({ name: 'n'.repeat(100) }));
      expect((await refused(base({ name: '' }))).message).toBe('Name is required');
      expect((await refused(base({ name: 'm'.repeat(101) }))).message).toBe('Name must be at most 100 characters long');
    });

    it('refuses a name another rule of the organisation has with SPEC.md’s text, but not a deleted rule’s', async () => {
      const res = await create(base({ name: DEMO_RULE_NAME }));
      expect(res.statusCode).toBe(400);
      expect(res.json().status).toMatchObject({ code: 'CB-07-0001', message: 'Autoflow name already exists' });
      expect(res.json().data).toEqual({ field: 'name', rule: 'unique' });
      await accepted(base({ name: 'Old threshold rule' }));
    });

    it('compares names trimmed and case-insensitively, on create and on update', async () => {
      const variant = `  ${DEMO_RULE_NAME.toLowerCase()} `;
      const res = await create(base({ name: variant }));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().data).toEqual({ field: 'name', rule: 'unique' });
      const other = await accepted(base());
      const upd = await call(suite.t.app, suite.admin, {
        method: 'PUT',
        url: RULES,
        payload: { id: other.id, name: DEMO_RULE_NAME.toUpperCase(), trigger: other.trigger, scope: other.scope, actions: other.actions },
      });
      expect(upd.statusCode, upd.body).toBe(400);
      expect(upd.json().data).toEqual({ field: 'name', rule: 'unique' });
      // A rule keeps its own name in another case, and a name is kept without the spaces around it.
      const self = await call(suite.t.app, suite.admin, {
        method: 'PUT',
        url: RULES,
        payload: { id: other.id, name: `  ${String(other.name).toUpperCase()}  `, trigger: other.trigger, scope: other.scope, actions: other.actions },
      });
      expect(self.statusCode, self.body).toBe(200);
      expect(self.json().data.name).toBe(String(other.name).toUpperCase());
    });

    it('says the name exists in each language', async () => {
      const zh = await create(base({ name: DEMO_RULE_NAME }), suite.admin, 'zh-CN');
      expect(zh.json().status.message).toBe('自动流程名称已存在');
      const es = await create(base({ name: DEMO_RULE_NAME }), suite.admin, 'es-ES');
      expect(es.json().status.message).toBe('El nombre del flujo automático ya existe');
    });
  });

  describe('trigger ranges (SPEC.md section 5)', () => {
    const data = (threshold: number, unit: string, window = 'cycle') => trigger({ type: 'data_usage', threshold, unit, window });
    it.each([
      ['KB', 1_073_741_824],
      ['MB', 1_048_576],
      ['GB', 1024],
    ])('data usage in %s: 1 and %i accepted, 0 and one more refused', async (unit, max) => {
      await accepted(data(1, unit));
      await accepted(data(max, unit, 'rolling_24h'));
      // The whole range in words, with the unit, whichever end is broken (a value is never clamped to it).
      const range = `Threshold must be between 1 and ${max.toLocaleString('en-US')} ${unit}`;
      expect((await refused(data(0, unit))).message).toBe(range);
      expect((await refused(data(-5, unit))).message).toBe(range);
      const over = await refused(data(max + 1, unit));
      expect(over.data).toEqual({ field: 'trigger.threshold', rule: 'maximum' });
      expect(over.message).toBe(range);
    });

    it.each([
      ['data_usage_percent', 'percent', 'Percentage', 200, {}],
      ['sms_mo', 'count', 'Count', 200, { window: 'cycle' }],
      ['sms_mt', 'count', 'Count', 1000, { window: 'rolling_24h' }],
      ['expiry_reminder', 'days', 'Days before expiry', 45, {}],
      ['no_connection', 'hours', 'Hours without connection', 720, {}],
    ])('%s: %s 1 and %i accepted, 0 and one more refused', async (type, field, label, max, extra) => {
      await accepted(trigger({ type, [field]: 1, ...extra }));
      await accepted(trigger({ type, [field]: max, ...extra }));
      const range = `${label} must be between 1 and ${max.toLocaleString('en-US')}`;
      expect((await refused(trigger({ type, [field]: 0, ...extra }))).message).toBe(range);
      expect((await refused(trigger({ type, [field]: max + 1, ...extra }))).message).toBe(range);
    });

    it('says SMS MO counts are 1 to 200 and a fraction is no whole number, in every language', async () => {
      const mo = (count: number) => trigger({ type: 'sms_mo', count, window: 'cycle' });
      expect((await refused(mo(0))).message).toBe('Count must be between 1 and 200');
      expect((await refused(mo(201))).message).toBe('Count must be between 1 and 200');
      await accepted(mo(200));
      const half = trigger({ type: 'data_usage', threshold: 1.5, unit: 'KB', window: 'cycle' });
      const said = async (lang: string, doc: Doc) => (await create(doc, suite.admin, lang)).json().status.message as string;
      expect(await said('en-US', half)).toBe('Threshold must be a whole number');
      expect(await said('zh-CN', half)).toBe('阈值必须是整数');
      expect(await said('zh-TW', half)).toBe('閾值必須是整數');
      expect(await said('es-ES', half)).toBe('El campo «Umbral» debe ser un número entero');
      const big = trigger({ type: 'data_usage', threshold: 1_073_741_825, unit: 'KB', window: 'cycle' });
      expect(await said('zh-CN', big)).toBe('阈值必须在 1 到 1,073,741,824 KB 之间');
      expect(await said('es-ES', big)).toBe('El campo «Umbral» debe estar entre 1 y 1.073.741.824 KB');
    });

    it('names each required condition field (threshold, percentage)', async () => {
      expect((await refused(trigger({ type: 'data_usage', unit: 'MB', window: 'cycle' }))).message).toBe('Threshold is required');
      expect((await refused(trigger({ type: 'data_usage_percent' }))).message).toBe('Percentage is required');
      expect((await refused(trigger({ type: 'data_usage', threshold: 5, window: 'cycle', unit: 'TB' }))).data).toEqual({ field: 'trigger.unit', rule: 'enum' });
    });

    it('a status change goes from one status to another (any to any allowed)', async () => {
      await accepted(trigger({ type: 'status_change', from: 'active', to: 'paused' }));
      await accepted(trigger({ type: 'status_change', from: 'any', to: 'any' }));
      expect((await refused(trigger({ type: 'status_change', from: 'paused', to: 'paused' }))).data).toEqual({ field: 'trigger.to', rule: 'statusFromTo' });
      expect((await refused(trigger({ type: 'status_change', from: 'active', to: 'inactive' }))).data.rule).toBe('enum');
    });

    it('an IMEI change is any, or outside a list of valid IMEIs, naming the invalid lines', async () => {
      const imei = (n: number) => {
        const body = `35${String(n).padStart(12, '0')}`;
        return body + luhnCheckDigit(body);
      };
      await accepted(trigger({ type: 'imei_change', mode: 'any' }));
      await accepted(trigger({ type: 'imei_change', mode: 'outside_list', imeis: [imei(1), imei(2)] }));
      expect((await refused(trigger({ type: 'imei_change', mode: 'outside_list' }))).message).toBe('IMEI list is required');
      const bad = await refused(trigger({ type: 'imei_change', mode: 'outside_list', imeis: [imei(1), '350000000000001', imei(3), imei(1)] }));
      expect(bad.message).toBe('IMEI list has an invalid IMEI on line 2');
      const dup = await refused(trigger({ type: 'imei_change', mode: 'outside_list', imeis: [imei(1), imei(3), imei(1)] }));
      expect(dup.message).toBe('IMEI list has a duplicate on line 3');
    });

    it('a country change names ISO countries, or none for any', async () => {
      await accepted(trigger({ type: 'country_change' }));
      await accepted(trigger({ type: 'country_change', countries: ['DE', 'ES'] }));
      expect((await refused(trigger({ type: 'country_change', countries: ['XX'] }))).data).toEqual({ field: 'trigger.countries', rule: 'country' });
      await accepted(trigger({ type: 'network_change' }));
    });
  });

  describe('scope', () => {
    it('accepts typed ICCIDs of the organisation', async () => {
      const rule = await accepted(base({ scope: { type: 'iccids', iccids: own.slice(0, 3) } }));
      expect(rule.scope).toEqual({ type: 'iccids', iccids: own.slice(0, 3) });
    });

    it('takes up to 1000 typed ICCIDs: 1000 reach the organisation check, 1001 are refused by count', async () => {
      const many = (n: number) => Array.from({ length: n }, (_, i) => makeIccid('8999', 900_000 + i));
      const thousand = await refused(base({ scope: { type: 'iccids', iccids: many(1000) } }));
      expect(thousand.data.rule).toBe('iccidForeign');
      expect(thousand.data.lines).toHaveLength(1000);
      expect(thousand.message).toBe('ICCID list has ICCIDs on lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, … that are not in the current organisation');
      const over = await refused(base({ scope: { type: 'iccids', iccids: many(1001) } }));
      expect(over.message).toBe('ICCID list can have at most 1,000 entries');
    });

    it('names the lines of Luhn-invalid ICCIDs, then of duplicates, then of another organisation’s', async () => {
      const broken = own[1].slice(0, -1) + String((Number(own[1].slice(-1)) + 1) % 10);
      const invalid = await refused(base({ scope: { type: 'iccids', iccids: [own[0], broken, own[2], '123'] } }));
      expect(invalid.message).toBe('ICCID list has invalid ICCIDs on lines 2, 4');
      expect(invalid.data.lines).toEqual([
        { line: 2, value: broken },
        { line: 4, value: '123' },
      ]);
      const dup = await refused(base({ scope: { type: 'iccids', iccids: [own[0], own[1], own[0]] } }));
      expect(dup.message).toBe('ICCID list has a duplicate on line 3');
      const other = await refused(base({ scope: { type: 'iccids', iccids: [own[0], foreign] } }));
      expect(other.message).toBe('ICCID list has an ICCID on line 2 that is not in the current organisation');
      expect(other.data.lines).toEqual([{ line: 2, value: foreign }]);
    });

    it('names the required field of each scope: tags, product type, shared pool', async () => {
      expect((await refused(base({ scope: { type: 'tags' } }))).message).toBe('Tags is required');
      expect((await refused(base({ scope: { type: 'product_type' } }))).message).toBe('Product type is required');
      expect((await refused(base({ scope: { type: 'pool' } }))).message).toBe('Shared pool is required');
      await accepted(base({ scope: { type: 'tags', tags: ['pilot', 'meters'] } }));
      await accepted(base({ scope: { type: 'product_type', productType: 'automotive' } }));
      await accepted(base({ scope: { type: 'pool', poolId: DEMO_POOL_ID } }));
      expect((await refused(base({ scope: { type: 'pool', poolId: 'A'.repeat(20) } }))).data).toEqual({ field: 'scope.poolId', rule: 'poolUnknown' });
      expect((await refused(base({ scope: { type: 'tags', tags: ['elevenchars'] } }))).message).toBe('Tags must be at most 10 characters long');
    });

    it('keeps only the fields of the scope’s type', async () => {
      const rule = await accepted(base({ scope: { type: 'all', tags: ['x'] } }));
      expect(rule.scope).toEqual({ type: 'all' });
    });

    it('refuses a scope file that was never validated', async () => {
      const res = await refused(base({ scope: { type: 'file', fileToken: 'nope', fileSha256: 'a'.repeat(64) } }));
      expect(res.data).toEqual({ field: 'scope.fileToken', rule: 'scopeFileUnknown' });
    });
  });

  describe('actions', () => {
    const email = (n: number) => Array.from({ length: n }, (_, i) => `ops${i}@demo.example.com`);
    it('take one or more in order, and at least one', async () => {
      const rule = await accepted(
        base({ actions: [{ type: 'throttle', speedKbps: 128 }, { type: 'tag', tag: 'slow' }, { type: 'sms', text: 'Slowed' }, { type: 'resume' }] }),
      );
      expect((rule.actions as Doc[]).map((a) => a.type)).toEqual(['throttle', 'tag', 'sms', 'resume']);
      expect((await refused(base({ actions: [] }))).message).toBe('Actions must have at least 1 entry');
      expect((await refused(base({ actions: [{ type: 'throttle', speedKbps: 512 }] }))).data).toEqual({ field: 'actions.0.speedKbps', rule: 'enum' });
      expect((await refused(base({ actions: [{ type: 'suspend' }, { type: 'throttle' }] }))).message).toBe('Throttle speed is required');
    });

    it('e-mail a group of 1 to 10 valid, unique addresses', async () => {
      await accepted(base({ actions: [{ type: 'email', emails: email(10) }] }));
      expect((await refused(base({ actions: [{ type: 'email', emails: email(11) }] }))).message).toBe('E-mail group (Actions 1) can have at most 10 entries');
      expect((await refused(base({ actions: [{ type: 'email', emails: [] }] }))).message).toBe('E-mail group (Actions 1) must have at least 1 entry');
      const address = await refused(base({ actions: [{ type: 'email', emails: ['not-an-address'] }] }));
      expect(address.data).toEqual({ field: 'actions.0.emails.0', rule: 'email' });
      expect(address.message).toBe('E-mail group (Actions 1) must be a valid e-mail address');
      const dup = await refused(base({ actions: [{ type: 'webhook' }, { type: 'email', emails: ['a@x.example.com', 'b@x.example.com', 'A@X.example.com'] }] }));
      expect(dup.data.field).toBe('actions.1.emails');
      expect(dup.data.lines).toEqual([{ line: 3, value: 'A@X.example.com' }]);
    });
  });

  describe('activation and expiry', () => {
    it('are not earlier than now, and expiry after activation', async () => {
      await accepted(base({ activationAt: inMinutes(5), expiryAt: inMinutes(60) }));
      expect((await refused(base({ activationAt: inMinutes(-5) }))).message).toBe('Activation time must not be earlier than now');
      expect((await refused(base({ expiryAt: inMinutes(-5) }))).message).toBe('Expiry time must not be earlier than now');
      expect((await refused(base({ activationAt: inMinutes(60), expiryAt: inMinutes(30) }))).message).toBe('Expiry time must not be before the start');
    });

    it('an edit may keep an activation time that has since passed', async () => {
      const rule = await accepted(base({ activationAt: inMinutes(5) }));
      await suite.t.db.query("UPDATE autoflow_rules SET activation_at = now() - interval '1 day' WHERE id = $1", [rule.id]);
      const kept = (await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}/${rule.id}/detail` })).json().data;
      const res = await call(suite.t.app, suite.admin, {
        method: 'PUT',
        url: RULES,
        payload: { id: rule.id, name: rule.name, trigger: rule.trigger, scope: rule.scope, actions: rule.actions, activationAt: kept.activationAt },
      });
      expect(res.statusCode, res.body).toBe(200);
      const moved = await call(suite.t.app, suite.admin, {
        method: 'PUT',
        url: RULES,
        payload: { id: rule.id, name: rule.name, trigger: rule.trigger, scope: rule.scope, actions: rule.actions, activationAt: inMinutes(-10) },
      });
      expect(moved.json().status.message).toBe('Activation time must not be earlier than now');
    });
  });

  describe('impact before enabling', () => {
    const IMPACT = `${RULES}/impact`;
    const impact = (doc: Doc, session = suite.admin) => call(suite.t.app, session, { method: 'POST', url: IMPACT, payload: doc });

    it('counts the SIMs a usage rule would act on now, by the engine’s evaluation, writing nothing', async () => {
      const meeting = async (kb: number) =>
        Number(
          (await suite.t.db.query<{ n: string }>("SELECT count(*)::text AS n FROM sims WHERE org_id = 'org-demo' AND cycle_usage_kb >= $1", [kb])).rows[0].n,
        );
      const trips = async () => Number((await suite.t.db.query<{ n: string }>('SELECT count(*)::text AS n FROM autoflow_trips')).rows[0].n);
      const before = await trips();
      const all = await impact(base({ trigger: { type: 'data_usage', threshold: 1, unit: 'KB', window: 'cycle' } }));
      expect(all.statusCode, all.body).toBe(200);
      expect(all.json().data).toEqual({ count: await meeting(1), basis: 'now' });
      expect(all.json().data.count).toBeGreaterThan(0);
      const few = await impact(base({ trigger: { type: 'data_usage', threshold: 1024, unit: 'GB', window: 'cycle' } }));
      expect(few.json().data).toEqual({ count: await meeting(1024 * 1024 * 1024), basis: 'now' });
      // Scoped to typed ICCIDs: at most those.
      const typed = await impact(
        base({ trigger: { type: 'data_usage', threshold: 1, unit: 'KB', window: 'cycle' }, scope: { type: 'iccids', iccids: own.slice(0, 2) } }),
      );
      expect(typed.json().data.count).toBeLessThanOrEqual(2);
      expect(await trips()).toBe(before);
    });

    it('counts the SIMs an event rule watches; refuses what a save refuses; a user may not ask', async () => {
      const sims = Number((await suite.t.db.query<{ n: string }>("SELECT count(*)::text AS n FROM sims WHERE org_id = 'org-demo'")).rows[0].n);
      const res = await impact(base({ trigger: { type: 'status_change', from: 'any', to: 'paused' } }));
      expect(res.json().data).toEqual({ count: sims, basis: 'scope' });
      const bad = await impact(base({ trigger: { type: 'data_usage', threshold: 0, unit: 'KB', window: 'cycle' } }));
      expect(bad.statusCode).toBe(400);
      expect(bad.json().status.message).toBe('Threshold must be between 1 and 1,073,741,824 KB');
      expect((await impact(base(), suite.user)).statusCode).toBe(403);
    });
  });

  describe('the maximum number of rules', () => {
    it('refuses one more than the setting allows with SPEC.md’s text; a deleted rule frees its place', async () => {
      const current = Number(
        (await suite.t.db.query<{ n: string }>("SELECT count(*)::text AS n FROM autoflow_rules WHERE org_id = 'org-demo' AND status <> 'deleted'")).rows[0].n,
      );
      const saved = suite.t.app.config.autoflowMaxRules;
      suite.t.app.config.autoflowMaxRules = current + 1;
      try {
        const last = await accepted(base());
        const over = await create(base());
        expect(over.statusCode).toBe(400);
        expect(over.json().status).toMatchObject({ code: 'CB-07-0002', message: `Maximum autoflows reached: an organisation may have ${current + 1} rules.` });
        expect((await call(suite.t.app, suite.admin, { method: 'DELETE', url: `${RULES}/${last.id}` })).statusCode).toBe(200);
        await accepted(base());
      } finally {
        suite.t.app.config.autoflowMaxRules = saved;
      }
    });
  });

  describe('rights', () => {
    it('an operator’s write answers SPEC.md’s permission text in four languages; a user cannot even read', async () => {
      const texts = {
        'en-US': 'You do not have this permission, please contact your admin!',
        'zh-CN': '您没有此权限，请联系管理员！',
        'zh-TW': '您沒有此權限，請聯絡管理員！',
        'es-ES': 'No tiene este permiso, ¡contacte con su administrador!',
      };
      for (const [lang, text] of Object.entries(texts)) {
        const res = await create(base(), suite.operator, lang);
        expect(res.statusCode).toBe(400);
        expect(res.json().status).toMatchObject({ code: 'CB-00-0402', message: text });
      }
      for (const [method, url] of [
        ['PUT', `${RULES}/${DEMO_RULE_ID}/disable`],
        ['DELETE', `${RULES}/${DEMO_RULE_ID}`],
        ['PUT', RULES],
      ] as const) {
        const res = await call(suite.t.app, suite.operator, { method, url, payload: method === 'DELETE' ? undefined : {} });
        expect(res.json().status.code, `${method} ${url}`).toBe('CB-00-0402');
      }
      const read = await call(suite.t.app, suite.user, { method: 'GET', url: RULES });
      expect(read.statusCode).toBe(403);
      expect(read.json().status.message).toBe('Permission denied');
    });
  });

  describe('list, detail, status, delete and change records', () => {
    it('lists the organisation’s rules that are not deleted, searched and filtered', async () => {
      const all = (await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}?pageSize=100` })).json().data;
      expect(all.items.every((r: Doc) => r.status !== 'deleted')).toBe(true);
      expect(all.items.some((r: Doc) => r.name === 'Other data alert')).toBe(false);
      const demo = all.items.find((r: Doc) => r.id === DEMO_RULE_ID);
      expect(demo).toMatchObject({
        name: DEMO_RULE_NAME,
        trigger: { type: 'data_usage', threshold: 50, unit: 'MB', window: 'cycle' },
        creatorEmail: DEMO.admin,
      });
      const search = (await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}?search=${encodeURIComponent('50 mb')}` })).json().data;
      expect(search.items.map((r: Doc) => r.id)).toContain(DEMO_RULE_ID);
      expect(search.items.every((r: Doc) => /50 MB/i.test(String(r.name)))).toBe(true);
      const disabled = (await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}?status=disabled&pageSize=100` })).json().data;
      expect(disabled.items.every((r: Doc) => r.status === 'disabled')).toBe(true);
      const bySuspend = (
        await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}?actionType=suspend&trigger=data_usage_percent&pageSize=100` })
      ).json().data;
      expect(bySuspend.items.length).toBeGreaterThan(0);
      expect(
        bySuspend.items.every(
          (r: Doc) => r.trigger && (r.trigger as Doc).type === 'data_usage_percent' && (r.actions as Doc[]).some((a) => a.type === 'suspend'),
        ),
      ).toBe(true);
    });

    it('records who changed what, before and after: create, update, disable, enable, delete', async () => {
      const rule = await accepted(base({ name: 'Tracked rule' }));
      const upd = await call(suite.t.app, suite.admin, { method: 'PUT', url: RULES, payload: { ...base({ name: 'Tracked rule 2' }), id: rule.id } });
      expect(upd.statusCode, upd.body).toBe(200);
      expect((await call(suite.t.app, suite.admin, { method: 'PUT', url: `${RULES}/${rule.id}/disable` })).json().data.status).toBe('disabled');
      expect((await call(suite.t.app, suite.admin, { method: 'PUT', url: `${RULES}/${rule.id}/enable` })).json().data.status).toBe('enabled');
      expect((await call(suite.t.app, suite.admin, { method: 'DELETE', url: `${RULES}/${rule.id}` })).statusCode).toBe(200);
      expect((await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}/${rule.id}/detail` })).statusCode).toBe(404);
      const records = (await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/rule/auto_flow/cube/change_records?ruleId=${rule.id}` })).json().data;
      expect(records.total).toBe(5);
      expect(records.items.map((r: Doc) => r.action)).toEqual(['delete', 'enable', 'disable', 'update', 'create']);
      expect(records.items.every((r: Doc) => r.accountEmail === DEMO.admin)).toBe(true);
      const update = records.items[3];
      expect(update.before).toMatchObject({ name: 'Tracked rule' });
      expect(update.after).toMatchObject({ name: 'Tracked rule 2' });
      expect(records.items[2]).toMatchObject({ before: { status: 'enabled' }, after: { status: 'disabled' } });
      // Another organisation's admin sees none of them.
      const other = await signIn(suite.t.app, 'admin@other.example.com');
      const theirs = (await call(suite.t.app, other, { method: 'GET', url: `/api/rule/auto_flow/cube/change_records?ruleId=${rule.id}` })).json().data;
      expect(theirs.total).toBe(0);
    });

    it('an unknown rule is not found by name', async () => {
      const res = await call(suite.t.app, suite.admin, { method: 'PUT', url: `${RULES}/nope/enable` });
      expect(res.statusCode).toBe(404);
      expect(res.json().status.message).toBe('Autoflow rule nope does not exist.');
    });
  });

  describe('SIMs in scope', () => {
    it('lists the organisation’s SIMs a rule watches, and downloads them', async () => {
      const typed = await accepted(base({ scope: { type: 'iccids', iccids: [own[2], own[0]] } }));
      const list = (await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/rule/auto_flow/cube/sims?ruleId=${typed.id}` })).json().data;
      expect(list.total).toBe(2);
      expect(list.items.map((s: Doc) => s.iccid)).toEqual([own[0], own[2]]);
      const tagged = (
        await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM sims WHERE org_id = 'org-demo' AND 'pilot' = ANY(tags) ORDER BY iccid")
      ).rows.map((r) => r.iccid);
      const byTag = await accepted(base({ scope: { type: 'tags', tags: ['pilot'] } }));
      const tagList = (await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/rule/auto_flow/cube/sims?ruleId=${byTag.id}&pageSize=100` })).json()
        .data;
      expect(tagList.items.map((s: Doc) => s.iccid)).toEqual(tagged.slice(0, 100));
      const all = await accepted(base());
      const allCount = Number((await suite.t.db.query<{ n: string }>("SELECT count(*)::text AS n FROM sims WHERE org_id = 'org-demo'")).rows[0].n);
      expect((await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/rule/auto_flow/cube/sims?ruleId=${all.id}` })).json().data.total).toBe(allCount);
      const csv = await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/rule/auto_flow/cube/sims/download?ruleId=${typed.id}` });
      expect(csv.statusCode).toBe(200);
      expect(csv.headers['content-type']).toContain('text/csv');
      const lines = csv.body.replace('\uFEFF', '').trim().split('\r\n');
      expect(lines[0]).toBe('ICCID,Status,Product type,Tags,Shared pool');
      expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([own[0], own[2]]);
      const theirs = await call(suite.t.app, await signIn(suite.t.app, 'admin@other.example.com'), {
        method: 'GET',
        url: `/api/rule/auto_flow/cube/sims?ruleId=${typed.id}`,
      });
      expect(theirs.statusCode).toBe(404);
    });
  });

  describe('multipart and countries', () => {
    it('creates from a multipart body with operator and scene headers; the scene "template" is kept as the origin', async () => {
      const boundary = '----rule';
      const doc = JSON.stringify(base({ name: 'From a template' }));
      const payload = `--${boundary}\r\nContent-Disposition: form-data; name="rule"\r\n\r\n${doc}\r\n--${boundary}--\r\n`;
      const res = await call(suite.t.app, suite.admin, {
        method: 'POST',
        url: RULES,
        payload,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, operator: DEMO.admin, scene: 'template' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toMatchObject({ name: 'From a template', origin: 'template' });
      const bad = `--${boundary}\r\nContent-Disposition: form-data; name="rule"\r\n\r\n${JSON.stringify(base({ name: '' }))}\r\n--${boundary}--\r\n`;
      const refusedRes = await call(suite.t.app, suite.admin, {
        method: 'POST',
        url: RULES,
        payload: bad,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      expect(refusedRes.json().status.message).toBe('Name is required');
    });

    it('lists the countries by name in the caller’s language', async () => {
      const res = await call(suite.t.app, suite.admin, {
        method: 'GET',
        url: '/api/rule/auto_flow/cube/countries',
        headers: sessionHeaders(suite.admin.token, suite.admin.partnerCode, 'zh-CN'),
      });
      const list = res.json().data as Array<{ code: string; name: string }>;
      expect(list.length).toBe(249);
      expect(list.find((c) => c.code === 'DE')?.name).toBe('德国');
    });

    it('lists the organisation’s shared pools for a pool scope, and only its own', async () => {
      const own = (await suite.t.db.query<{ id: string; name: string }>("SELECT id, name FROM shared_pools WHERE org_id = 'org-demo' ORDER BY name, id")).rows;
      expect(own.length).toBeGreaterThan(0);
      const res = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/rule/auto_flow/cube/pools' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual(own);
      const theirs = await call(suite.t.app, await signIn(suite.t.app, 'admin@other.example.com'), { method: 'GET', url: '/api/rule/auto_flow/cube/pools' });
      expect((theirs.json().data as Array<{ id: string }>).some((p) => own.some((o) => o.id === p.id))).toBe(false);
    });
  });

  describe('scope and IMEI files', () => {
    const boundary = '----file';
    const upload = (kind: string, name: string, text: string, session = suite.admin) =>
      call(suite.t.app, session, {
        method: 'POST',
        url: `/api/rule/auto_flow/cube/validation/${kind}`,
        payload: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\n${text}\r\n--${boundary}--\r\n`,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
    const csv = (header: string, values: string[]) => [header, ...values].join('\r\n');
    const sha256 = async (text: string) => (await import('node:crypto')).createHash('sha256').update(text).digest('hex');

    it('offers templates in csv, xls and xlsx', async () => {
      const res = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/rule/auto_flow/cube/template/scope?format=csv' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-disposition']).toContain('autoflow-iccid-template.csv');
      expect(res.body.replace('\uFEFF', '').split('\r\n')[0]).toBe('ICCID');
      const xlsx = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/rule/auto_flow/cube/template/imei_change' });
      expect(xlsx.headers['content-type']).toContain('spreadsheetml');
    });

    it('validates a file of the organisation’s ICCIDs into a token bound to its hash; a changed file must be uploaded again', async () => {
      const text = csv('ICCID', own.slice(0, 3));
      const res = await upload('scope', 'sims.csv', text);
      expect(res.statusCode, res.body).toBe(200);
      const v = res.json().data;
      expect(v).toMatchObject({ fileName: 'sims.csv', count: 3, sha256: await sha256(text) });
      const rule = await accepted(base({ scope: { type: 'file', fileToken: v.token, fileSha256: v.sha256, fileName: 'sims.csv' } }));
      expect(rule.scope).toEqual({ type: 'file', fileToken: v.token, fileSha256: v.sha256, fileName: 'sims.csv' });
      const changed = await refused(base({ scope: { type: 'file', fileToken: v.token, fileSha256: await sha256(`${text}\r\n${own[3]}`) } }));
      expect(changed.message).toBe('Scope file was modified after validation. Please upload it again');
    });

    it('names the rows (as the spreadsheet numbers them) of invalid, repeated and foreign ICCIDs', async () => {
      const invalid = await upload('scope', 'sims.csv', csv('ICCID', [own[0], '8949', own[1]]));
      expect(invalid.json().status.message).toBe('File has an invalid ICCID on line 3');
      const dup = await upload('scope', 'sims.csv', csv('ICCID', [own[0], own[1], own[0]]));
      expect(dup.json().status.message).toBe('File has a duplicate on line 4');
      const other = await upload('scope', 'sims.csv', csv('ICCID', [foreign, own[0]]));
      expect(other.json().data.lines).toEqual([{ line: 2, value: foreign }]);
    });

    it('takes 10,000 rows and refuses 10,001', async () => {
      const many = (n: number) => Array.from({ length: n }, (_, i) => makeIccid('8999', 500_000 + i));
      const tenThousand = await upload('scope', 'many.csv', csv('ICCID', many(10_000)));
      expect(tenThousand.json().data.rule).toBe('iccidForeign');
      const over = await upload('scope', 'many.csv', csv('ICCID', many(10_001)));
      expect(over.json().status.message).toBe('File must have at most 10,000 rows');
    });

    it('refuses a file of another format, and an operator', async () => {
      expect((await upload('scope', 'sims.txt', 'ICCID')).json().status.message).toBe('File must be a .xls, .xlsx, .csv file');
      const op = await upload('scope', 'sims.csv', csv('ICCID', own.slice(0, 1)), suite.operator);
      expect(op.json().status.code).toBe('CB-00-0402');
    });

    it('validates a file of IMEIs for an IMEI-change trigger', async () => {
      const text = csv('IMEI', ['356938035643809', '490154203237518']);
      const v = (await upload('imei_change', 'imeis.csv', text)).json().data;
      expect(v.count).toBe(2);
      await accepted(trigger({ type: 'imei_change', mode: 'outside_list', imeiFileToken: v.token, imeiFileSha256: v.sha256 }));
      // A scope token is not an IMEI list, and an IMEI token is not a scope.
      expect((await refused(base({ scope: { type: 'file', fileToken: v.token, fileSha256: v.sha256 } }))).data.rule).toBe('scopeFileUnknown');
      const bad = await upload('imei_change', 'imeis.csv', csv('IMEI', ['356938035643809', '356938035643808']));
      expect(bad.json().status.message).toBe('File has an invalid IMEI on line 3');
    });
  });
});

/**
 * The job and organisation calls: a task's provider log, notification subscription groups (e-mail and SMS),
 * and an organisation's enterprise and settlement details.
 */
import { describe, expect, it } from 'vitest';
import { SPECIAL_SIMS } from '../../server/db/seed-fleet.js';
import { call, countRows, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('job and organisation calls of SPEC.md section 7 on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, operator: DEMO.operator, user: DEMO.user, other: 'admin@other.example.com' });
  const runJobs = async () => {
    while (await suite.t.app.jobs.runOnce());
  };
  const req = (s: Session, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, language?: string) =>
    call(suite.t.app, s, { method, url, ...(payload ? { payload } : {}), ...(language ? { headers: { language } } : {}) });

  describe('GET /rest/logs/provider/result/{id}', () => {
    it('tells what the worker and the network said while an activation ran, in the reader’s language', async () => {
      const taskId = (await req(suite.admin, 'POST', '/api/main/sim/active', { iccids: [SPECIAL_SIMS.activatable] })).json().data.taskId as string;
      await runJobs();
      const res = await req(suite.admin, 'GET', `/api/job/rest/logs/provider/result/${taskId}`);
      expect(res.statusCode).toBe(200);
      const data = res.json().data;
      expect(data.status).toBe('done');
      const messages = data.lines.map((l: { message: string }) => l.message);
      expect(messages[0]).toBe('claimed');
      expect(messages).toContain('sentToNetwork');
      expect(messages).toContain('networkAnswered');
      expect(messages.at(-1)).toBe('finished');
      expect(data.lines.find((l: { message: string }) => l.message === 'networkAnswered')).toEqual(
        expect.objectContaining({ provider: 'network', text: 'The network answered: 1 activated, 0 refused' }),
      );
      const es = (await req(suite.admin, 'GET', `/api/job/rest/logs/provider/result/${taskId}`, undefined, 'es-ES')).json().data;
      expect(es.lines.at(-1).text).toBe('Terminada');
    });

    it('logs an export’s end with its rows, and a takeover from a stopped instance as a warning', async () => {
      const latest = (await suite.t.db.query<{ at: Date }>("SELECT max(start_at) AS at FROM cdrs WHERE org_id = 'org-demo'")).rows[0].at.getTime();
      const taskId = (
        await req(suite.user, 'POST', '/api/cdr/export/all/distributor/DEMO/csv/cdrs', {
          startAtFrom: new Date(latest - 86_400_000).toISOString(),
          startAtTo: new Date(latest).toISOString(),
        })
      ).json().data.taskId as string;
      await suite.t.db.query("UPDATE tasks SET claimed_by = 'worker-gone', heartbeat_at = now() - interval '5 minutes', attempts = 1 WHERE id = $1", [taskId]);
      await runJobs();
      const lines = (await req(suite.user, 'GET', `/api/job/rest/logs/provider/result/${taskId}`)).json().data.lines as Array<{
        message: string;
        level: string;
        detail: Record<string, unknown>;
        text: string;
      }>;
      expect(lines[0]).toEqual(expect.objectContaining({ message: 'takenOver', level: 'warn' }));
      expect(lines[0].text).toContain('worker-gone');
      expect(lines.at(-1)).toEqual(expect.objectContaining({ message: 'finished', detail: expect.objectContaining({ rows: expect.any(Number) }) }));
    });

    it('answers 404 for someone else’s task and another organisation’s, 400 for an id that is too long', async () => {
      const mine = (await suite.t.db.query<{ id: string }>("SELECT id FROM tasks WHERE account_id = 'acc-admin' AND org_id = 'org-demo' LIMIT 1")).rows[0].id;
      expect((await req(suite.user, 'GET', `/api/job/rest/logs/provider/result/${mine}`)).statusCode).toBe(404);
      expect((await req(suite.other, 'GET', `/api/job/rest/logs/provider/result/${mine}`)).statusCode).toBe(404);
      expect((await req(suite.admin, 'GET', `/api/job/rest/logs/provider/result/${'x'.repeat(41)}`)).statusCode).toBe(400);
    });
  });

  describe('GET, POST and PUT /rest/subscribe/group', () => {
    const url = '/api/job/rest/subscribe/group';

    it('an administrator makes an e-mail group and an SMS group; a task’s end is told to both', async () => {
      const mail = await req(suite.admin, 'POST', url, {
        channel: 'email',
        name: 'Ops',
        notifications: ['task_done', 'task_issues'],
        recipients: ['Ops@Example.com', 'noc@example.com'],
      });
      expect(mail.statusCode).toBe(200);
      expect(mail.json().data).toEqual(
        expect.objectContaining({ channel: 'email', recipients: ['ops@example.com', 'noc@example.com'], enabled: true, language: 'en-US' }),
      );
      const sms = await req(suite.admin, 'POST', url, {
        channel: 'sms',
        name: 'On call',
        notifications: ['task_issues'],
        recipients: ['4915112345678'],
        language: 'zh-CN',
      });
      expect(sms.statusCode).toBe(200);
      const list = (await req(suite.admin, 'GET', `${url}?channel=sms`)).json().data;
      expect(list.items.map((g: { name: string }) => g.name)).toEqual(['On call']);
      expect(list.kinds).toEqual(['task_done', 'task_issues']);
      expect(await countRows(suite.t.db, 'events', "type = 'org' AND subtype = 'subscription_group_created'")).toBe(2);

      const latest = (await suite.t.db.query<{ at: Date }>("SELECT max(start_at) AS at FROM cdrs WHERE org_id = 'org-demo'")).rows[0].at.getTime();
      const taskId = (
        await req(suite.user, 'POST', '/api/cdr/export/all/distributor/DEMO/csv/cdrs', {
          startAtFrom: new Date(latest - 3_600_000).toISOString(),
          startAtTo: new Date(latest).toISOString(),
        })
      ).json().data.taskId;
      await runJobs();
      const ref = (await suite.t.db.query<{ reference_id: string }>('SELECT reference_id FROM tasks WHERE id = $1', [taskId])).rows[0].reference_id;
      const mails = (
        await suite.t.db.query<{ to_address: string; subject: string }>(
          "SELECT to_address, subject FROM outbox WHERE kind = 'notice' AND subject LIKE $1 ORDER BY to_address",
          [`%${ref}%`],
        )
      ).rows;
      expect(mails).toEqual([
        { to_address: 'noc@example.com', subject: `Task ${ref} (CDR export): done` },
        { to_address: 'ops@example.com', subject: `Task ${ref} (CDR export): done` },
      ]);
      // The SMS group takes only issues.
      expect(await countRows(suite.t.db, 'sms_outbox', 'body LIKE $1', [`%${ref}%`])).toBe(0);

      // Turned off, a group hears nothing.
      const off = await req(suite.admin, 'PUT', url, { id: mail.json().data.id, enabled: false });
      expect(off.json().data.enabled).toBe(false);
      const again = (
        await req(suite.user, 'POST', '/api/cdr/export/all/distributor/DEMO/csv/cdrs', {
          startAtFrom: new Date(latest - 3_600_000).toISOString(),
          startAtTo: new Date(latest).toISOString(),
        })
      ).json().data.taskId;
      await runJobs();
      const ref2 = (await suite.t.db.query<{ reference_id: string }>('SELECT reference_id FROM tasks WHERE id = $1', [again])).rows[0].reference_id;
      expect(await countRows(suite.t.db, 'outbox', 'subject LIKE $1', [`%${ref2}%`])).toBe(0);
    });

    it('refuses bad recipients, names and kinds with the field and the rule, in the caller’s language', async () => {
      const bad = async (payload: object, message: string | RegExp, language?: string) => {
        const res = await req(suite.admin, 'POST', url, payload, language);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().status.message).toMatch(message);
      };
      const base = { channel: 'email', name: 'Group', notifications: ['task_done'], recipients: ['a@example.com'] };
      await bad({ ...base, recipients: ['not-an-address'] }, 'Recipients must be a valid e-mail address');
      await bad({ ...base, recipients: ['a@example.com', 'A@example.com'] }, 'Recipients contains a duplicate address (A@example.com)');
      await bad(
        { ...base, channel: 'sms', recipients: ['+4915112345678'] },
        '+4915112345678 must be digits in international format, country code first, without + or a leading 0',
      );
      await bad({ ...base, channel: 'sms', recipients: ['0015112345678'] }, /^0015112345678 /);
      await bad({ ...base, recipients: Array.from({ length: 11 }, (_, i) => `u${i}@example.com`) }, 'Recipients can have at most 10 entries');
      await bad({ ...base, recipients: [] }, 'Recipients must have at least 1 entry');
      await bad({ ...base, name: '' }, 'Name is required');
      await bad({ ...base, name: '   ' }, 'Name is required');
      await bad({ ...base, name: 'x'.repeat(51) }, 'Name must be at most 50 characters long');
      await bad({ ...base, notifications: ['everything'] }, /^Notifications must be one of: task_done, task_issues/);
      await bad({ ...base, channel: 'fax' }, /Channel/);
      await bad({ ...base, recipients: ['not-an-address'] }, /^收件人|^接收人/, 'zh-CN');
      // Exactly 10 recipients and 50 characters pass.
      const ok = await req(suite.admin, 'POST', url, { ...base, name: 'y'.repeat(50), recipients: Array.from({ length: 10 }, (_, i) => `u${i}@example.com`) });
      expect(ok.statusCode).toBe(200);
      expect((await req(suite.admin, 'POST', url, { ...base, name: 'Y'.repeat(50) })).json().status.message).toBe('Name is already in use');
      // A hostile name is stored as text.
      const hostile = "<script>alert(1)</script>'; DROP TABLE tasks;--";
      expect((await req(suite.admin, 'POST', url, { ...base, name: hostile })).json().data.name).toBe(hostile);
    });

    it('keeps the groups to administrators of the organisation; another organisation’s group is missing', async () => {
      expect((await req(suite.user, 'GET', '/api/job/rest/subscribe/group')).statusCode).toBe(403);
      expect(
        (
          await req(suite.operator, 'POST', '/api/job/rest/subscribe/group', {
            channel: 'email',
            name: 'Mine',
            notifications: ['task_done'],
            recipients: ['a@example.com'],
          })
        ).statusCode,
      ).toBe(403);
      const mine = (await req(suite.admin, 'GET', '/api/job/rest/subscribe/group')).json().data.items[0].id;
      expect((await req(suite.other, 'PUT', '/api/job/rest/subscribe/group', { id: mine, name: 'Taken over' })).statusCode).toBe(404);
      expect((await req(suite.other, 'GET', '/api/job/rest/subscribe/group')).json().data.items).toEqual([]);
      expect((await req(suite.admin, 'PUT', '/api/job/rest/subscribe/group', { id: mine })).statusCode).toBe(400);
    });
  });

  describe('GET /enterprises/selectByOrgCode/{code} and PUT /enterprises', () => {
    const details = {
      orgCode: 'DEMO',
      legalName: 'Demo Logistics GmbH',
      taxId: 'DE123456789',
      address: 'Hafenstraße 1',
      billingEmail: 'Billing@Demo.example.com',
      phone: '4940123456',
      currency: 'EUR',
      invoiceType: 'credit',
      creditLimitMinor: 123456,
      bankName: 'Demo Bank',
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
    };

    it('an administrator reads and saves the details; the change is audited and an event', async () => {
      const res = await req(suite.admin, 'GET', '/api/main/enterprises/selectByOrgCode/DEMO');
      expect(res.json().data).toEqual(
        expect.objectContaining({ orgCode: 'DEMO', saved: true, legalName: 'Demo Logistics GmbH', currency: 'EUR', canEdit: true }),
      );
      const put = await req(suite.admin, 'PUT', '/api/main/enterprises', details);
      expect(put.statusCode).toBe(200);
      expect(put.json().data).toEqual(expect.objectContaining({ invoiceType: 'credit', creditLimitMinor: 123456, billingEmail: 'billing@demo.example.com' }));
      expect(await countRows(suite.t.db, 'audit_log', "entity = 'enterprise'")).toBe(1);
      expect(await countRows(suite.t.db, 'events', "type = 'org' AND subtype = 'enterprise_updated'")).toBe(1);
      // A sub-organisation without details answers its defaults, not saved; saving makes them.
      const north = (await req(suite.admin, 'GET', '/api/main/enterprises/selectByOrgCode/DEMO-NORTH')).json().data;
      expect(north).toEqual(expect.objectContaining({ saved: false, currency: 'EUR', invoiceType: 'post_payment' }));
      const saved = await req(suite.admin, 'PUT', '/api/main/enterprises', {
        orgCode: 'DEMO-NORTH',
        legalName: 'North Ltd',
        currency: 'USD',
        invoiceType: 'advance',
      });
      expect(saved.json().data).toEqual(expect.objectContaining({ saved: true, legalName: 'North Ltd', taxId: null }));
    });

    it('refuses bad details naming the field and the rule, both sides of each limit', async () => {
      const bad = async (patch: object, message: string | RegExp) => {
        const res = await req(suite.admin, 'PUT', '/api/main/enterprises', { ...details, ...patch });
        expect(res.statusCode, JSON.stringify(patch)).toBe(400);
        expect(res.json().status.message).toMatch(message);
      };
      await bad({ iban: 'DE89370400440532013001' }, 'This IBAN is not valid (its check digits do not match)');
      await bad({ iban: 'de89370400440532013000' }, 'IBAN has the wrong format');
      await bad({ bic: 'COBADEF' }, 'BIC has the wrong format');
      await bad({ creditLimitMinor: -1 }, /^Credit limit must be between 0 and /);
      await bad({ creditLimitMinor: 100_000_000_001 }, /^Credit limit must be between 0 and /);
      await bad({ creditLimitMinor: 1.5 }, 'Credit limit must be a whole number');
      await bad({ creditLimitMinor: '100' }, 'Credit limit must be a whole number');
      await bad({ legalName: 'x'.repeat(101) }, 'Legal name must be at most 100 characters long');
      await bad({ legalName: '  ' }, 'Legal name is required');
      await bad({ currency: 'eur' }, /^Currency:? must be one of/);
      await bad({ currency: 'XXX' }, /^Currency:? must be one of/);
      await bad({ invoiceType: 'free' }, /^Invoice type:? must be one of/);
      await bad({ phone: '+4940123456' }, /^Phone:? has the wrong format$/);
      await bad({ phone: '0040123456' }, '0040123456 must be digits in international format, country code first, without + or a leading 0');
      await bad({ billingEmail: 'nobody' }, /^Billing e-mail:? has the wrong format$/);
      await bad({ extra: 1 }, /^extra:? is not an accepted field/);
      expect(
        (await req(suite.admin, 'PUT', '/api/main/enterprises', { ...details, legalName: 'x'.repeat(100), creditLimitMinor: 100_000_000_000 })).statusCode,
      ).toBe(200);
      expect((await req(suite.admin, 'PUT', '/api/main/enterprises', { ...details, creditLimitMinor: 0, taxId: null, iban: null })).statusCode).toBe(200);
    });

    it('keeps a settlement customer’s legal name (0133)', async () => {
      await suite.t.db.query("UPDATE organisations SET settlement = true WHERE code = 'DEMO'");
      const res = await req(suite.admin, 'PUT', '/api/main/enterprises', { ...details, legalName: 'Renamed GmbH' });
      expect(res.statusCode).toBe(400);
      expect(res.json().status.code).toBe('0133');
      expect((await req(suite.admin, 'PUT', '/api/main/enterprises', details)).statusCode).toBe(200);
      await suite.t.db.query("UPDATE organisations SET settlement = false WHERE code = 'DEMO'");
    });

    it('keeps the details from users, operators and other organisations', async () => {
      expect((await req(suite.user, 'GET', '/api/main/enterprises/selectByOrgCode/DEMO')).statusCode).toBe(403);
      expect((await req(suite.operator, 'PUT', '/api/main/enterprises', details)).statusCode).toBe(403);
      expect((await req(suite.other, 'GET', '/api/main/enterprises/selectByOrgCode/DEMO')).statusCode).toBe(404);
      expect((await req(suite.other, 'PUT', '/api/main/enterprises', details)).statusCode).toBe(404);
      expect((await req(suite.admin, 'GET', '/api/main/enterprises/selectByOrgCode/OTHER')).statusCode).toBe(404);
    });
  });
});

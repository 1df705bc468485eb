/**
 * The other invoice types: the advance invoice the monthly job makes of a month's prepaid bundle orders,
 * credit notes against published or paid invoices, deposit requests, and a draft's settlement details with the
 * organisation's billing profile. Amounts to the cent in integer minor units, re-runs, rights and other organisations.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CREDIT_MAX_MINOR } from '../../common/enterprise.js';
import { formatMoney } from '../../common/numbers.js';
import { DEPOSIT_MAX_MINOR } from '../../server/billing/bill-types-routes.js';
import { advanceInvoice, advanceInvoices } from '../../server/billing/invoice-advance.js';
import { runInvoiceJob } from '../../server/billing/invoice-job.js';
import { newId } from '../../server/db/ids.js';
import { BACK_OFFICE, call, countRows, DB_KINDS, DEMO, inOrg, type Session, signedInSuite } from '../helper.js';

const BILLS = '/api/customer/cube/v2/api/customer/bills';
/** round(n / d), half away from zero, for non-negative integers. */
const roundDiv = (n: number, d: number) => Math.floor((2 * n + d) / (2 * d));

describe.each(DB_KINDS)('advance, credit and predeposit invoices and settlement details on %s', (kind) => {
  const suite = signedInSuite(
    { kind, config: { clock: () => clock } },
    { billing: BACK_OFFICE, admin: DEMO.admin, operator: DEMO.operator, user: DEMO.user, other: 'admin@other.example.com' },
  );
  const billingOther = () => inOrg(suite.billing, 'OTHER');
  // A month the demo's seed bills nothing in, so the job's invoices of it are this test's alone.
  const cycle = '2024-03';
  const jobNow = new Date('2024-04-01T01:00:00Z');
  let clock = new Date('2024-04-10T09:00:00Z');
  let sims: Array<{ id: string; iccid: string }> = [];
  let rateBp = 0;
  const req = (s: Session, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    call(suite.t.app, s, { method, url, ...(payload ? { payload } : {}) });
  const invoiceOf = async (type: string) =>
    (
      await suite.t.db.query<{ id: string; total: string; net: string; tax: string }>(
        `SELECT id, amount_incl_tax::text AS total, amount_excl_tax::text AS net, tax_amount::text AS tax FROM invoices WHERE org_id = 'org-demo' AND billing_cycle = $1 AND type = $2 AND is_current`,
        [cycle, type],
      )
    ).rows[0];
  const cents = (text: string) => Math.round(Number(text) * 100);

  beforeAll(async () => {
    sims = (await suite.t.db.query<{ id: string; iccid: string }>("SELECT id, iccid FROM sims WHERE org_id = 'org-demo' ORDER BY id LIMIT 3")).rows;
    rateBp = Math.round(
      Number((await suite.t.db.query<{ r: string }>("SELECT tax_rate::text AS r FROM billing_profiles WHERE org_id = 'org-demo'")).rows[0].r) * 10000,
    );
    // Bundle orders of March 2024: three prepaid ones billed in advance (a price of half a cent to round), and beside
    // them what the advance invoice leaves out: a cancelled one, a test one, one ordered in February, a postpaid one.
    const order = (sim: { id: string; iccid: string }, o: { type?: string; mode?: string; price: string; at: string; status?: string }) =>
      suite.t.db.query(
        `INSERT INTO bundle_orders (org_id, id, sim_id, iccid, type, payment_mode, name, sku, ordered_at, activated_at, expired_at, quota_kb, reset_cycle, status, price, currency)
         VALUES ('org-demo', $1, $2, $3, $4, $5, 'Test bundle', $6, $7, $7, '2024-03-31T00:00:00Z', 1048576, 'MONTH', $8, $9, 'EUR')`,
        [newId(), sim.id, sim.iccid, o.type ?? 'BEFORE_BASIC', o.mode ?? 'prepaid', `T-${o.mode ?? 'prepaid'}`, o.at, o.status ?? 'EXPIRED', o.price],
      );
    await order(sims[0], { price: '12.345', at: '2024-03-02T10:00:00Z' });
    await order(sims[0], { type: 'BEFORE_SUPPLEMENT', price: '5.0000', at: '2024-03-20T10:00:00Z' });
    await order(sims[1], { price: '7.1250', at: '2024-03-31T23:59:59Z' });
    await order(sims[1], { price: '100', at: '2024-03-05T00:00:00Z', status: 'CANCELLED' });
    await order(sims[1], { type: 'BEFORE_TEST', price: '50', at: '2024-03-05T00:00:00Z' });
    await order(sims[2], { price: '40', at: '2024-02-29T23:59:59Z' });
    await order(sims[2], { type: 'AFTER_BUNDLE', mode: 'postpaid', price: '9.99', at: '2024-03-03T00:00:00Z' });
  });

  describe('advance invoices', () => {
    it("the job bills the month's prepaid orders in advance, to the cent; the post-payment invoice prices them 0", async () => {
      const run = await runInvoiceJob(suite.t.db, jobNow, 'instance-a', 0);
      expect(run.ran).toBe(true);
      const adv = await invoiceOf('advance');
      expect(adv).toBeDefined();
      const lines = (
        await suite.t.db.query<{ sim_id: string; qty: number; price: string; amount: string }>(
          'SELECT sim_id, bundle_quantity AS qty, bundle_price::text AS price, amount::text AS amount FROM invoice_lines WHERE invoice_id = $1 ORDER BY sim_id',
          [adv.id],
        )
      ).rows;
      expect(lines.map((l) => [l.sim_id, l.qty, cents(l.amount)])).toEqual([
        [sims[0].id, 2, 1235 + 500],
        [sims[1].id, 1, 713],
      ]);
      const net = 1735 + 713;
      expect(cents(adv.net)).toBe(net);
      expect(cents(adv.tax)).toBe(roundDiv(net * rateBp, 10000));
      expect(cents(adv.total)).toBe(net + roundDiv(net * rateBp, 10000));
      const row = (
        await suite.t.db.query<{ bill_id: string; status: string; version: number; sku: string }>(
          'SELECT bill_id, status, version, sku FROM invoices WHERE id = $1',
          [adv.id],
        )
      ).rows[0];
      expect(row).toEqual({ bill_id: 'ADV-202403-DEMO', status: 'draft', version: 1, sku: 'PREPAID' });
      // The post-payment invoice of the month: the prepaid SIMs' bundles at 0, the postpaid one at its fee.
      const post = await invoiceOf('post_payment');
      const postLines = new Map(
        (
          await suite.t.db.query<{ sim_id: string; price: string }>(
            'SELECT sim_id, bundle_price::text AS price FROM invoice_lines WHERE invoice_id = $1 AND sim_id = ANY($2)',
            [post.id, sims.map((s) => s.id)],
          )
        ).rows.map((l) => [l.sim_id, cents(l.price)]),
      );
      const postpaid = async (simId: string) =>
        Number(
          (
            await suite.t.db.query<{ c: string }>(
              "SELECT coalesce(sum(round(price, 2)), 0)::text AS c FROM bundle_orders WHERE sim_id = $1 AND payment_mode = 'postpaid' AND type <> 'BEFORE_TEST' AND activated_at < '2024-04-01' AND (expired_at IS NULL OR expired_at > '2024-03-01')",
              [simId],
            )
          ).rows[0].c,
        ) * 100;
      for (const s of sims) expect(postLines.get(s.id), s.id).toBe(Math.round(await postpaid(s.id)));
      expect(postLines.get(sims[2].id)).toBeGreaterThanOrEqual(999);
      expect(await countRows(suite.t.db, 'events', "type = 'invoice' AND subtype = 'created' AND subject = $1", [adv.id])).toBe(1);
    });

    it('made once: a re-run and two instances at once change nothing', async () => {
      const snapshot = async () =>
        JSON.stringify(
          (
            await suite.t.db.query(
              'SELECT id, amount_incl_tax::text, updated_at, (SELECT count(*) FROM invoice_lines l WHERE l.invoice_id = i.id)::int AS n FROM invoices i WHERE billing_cycle = $1 ORDER BY id',
              [cycle],
            )
          ).rows,
        ) + (await countRows(suite.t.db, 'events', "type = 'invoice'"));
      const before = await snapshot();
      const again = await runInvoiceJob(suite.t.db, new Date(jobNow.getTime() + 86_400_000), 'instance-b', 0);
      expect(again.made).toEqual([]);
      const both = await Promise.all([advanceInvoices(suite.t.db, cycle, jobNow), advanceInvoices(suite.t.db, cycle, jobNow)]);
      expect(both.flat()).toEqual([]);
      // Past the "none made yet" filter, the unique key (organisation, month, advance, 1) still keeps a second one out.
      expect(await suite.t.db.tx((q) => advanceInvoice(q, 'org-demo', cycle, jobNow))).toBeUndefined();
      expect(await snapshot()).toBe(before);
    });
  });

  describe('credit notes', () => {
    const credit = (s: Session, id: string, body: object) => req(s, 'POST', `${BILLS}/${id}/credit`, body);

    it('an administrator credits a published invoice, never beyond what it invoiced, with the tax split to the cent', async () => {
      const adv = await invoiceOf('advance');
      const total = cents(adv.total);
      // A draft is not credited: it is corrected or edited instead.
      const draft = await credit(suite.billing, adv.id, { amountMinor: 100, reason: 'Goodwill' });
      expect(draft.statusCode).toBe(409);
      expect(draft.json().status.message).toMatch(/published or paid/);
      expect((await req(suite.billing, 'POST', `${BILLS}/${adv.id}/publish`)).statusCode).toBe(200);
      const bad = async (body: object, message: string | RegExp) => {
        const res = await credit(suite.billing, adv.id, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().status.message).toMatch(message);
      };
      await bad({ amountMinor: 0, reason: 'x' }, 'Amount must be between 1 and 100,000,000,000');
      await bad({ amountMinor: 1.5, reason: 'x' }, 'Amount must be a whole number');
      await bad({ amountMinor: '100', reason: 'x' }, 'Amount must be a whole number');
      // Above what is left: said as money, the limit in the answer's data for a program.
      const eur = (minor: number) => formatMoney(minor, 'EUR', 'en-US');
      await bad(
        { amountMinor: total + 1, reason: 'x' },
        `At most ${eur(total)} is left to credit on this invoice: its total less the credit notes already issued.`,
      );
      expect((await credit(suite.billing, adv.id, { amountMinor: total + 1, reason: 'x' })).json().data).toEqual({
        field: 'amountMinor',
        rule: 'maximum',
        limit: total,
      });
      expect((await req(suite.billing, 'GET', `${BILLS}/${adv.id}/settlement`)).json().data.creditLeftMinor).toBe(total);
      await bad({ amountMinor: 100 }, 'Reason is required');
      await bad({ amountMinor: 100, reason: 'x'.repeat(201) }, 'Reason must be at most 200 characters long');
      await bad({ amountMinor: 100, reason: '   ' }, /^Reason:? has the wrong format$/);
      const res = await credit(suite.billing, adv.id, { amountMinor: 1000, reason: 'x'.repeat(200) });
      expect(res.statusCode).toBe(200);
      const note = res.json().data;
      const tax = roundDiv(1000 * rateBp, 10000 + rateBp);
      expect(note).toEqual(
        expect.objectContaining({ type: 'credit', status: 'published', billId: 'CRN-202403-DEMO-1', billingCycle: cycle, version: 1, currency: 'EUR' }),
      );
      expect(Math.round(note.amountInclTax * 100)).toBe(-1000);
      expect(Math.round(note.taxAmount * 100)).toBe(-tax);
      expect(Math.round(note.amountExclTax * 100)).toBe(-(1000 - tax));
      expect(note.issuedAt).toBe(clock.toISOString());
      expect(
        await countRows(suite.t.db, 'events', "type = 'invoice' AND subtype = 'credited' AND subject = $1 AND data->>'creditFor' = $2", [note.id, adv.id]),
      ).toBe(1);
      const line = (
        await suite.t.db.query<{ amount: string; sim_id: string | null }>('SELECT amount::text AS amount, sim_id FROM invoice_lines WHERE invoice_id = $1', [
          note.id,
        ])
      ).rows;
      expect(line.map((l) => [cents(l.amount), l.sim_id])).toEqual([[-(1000 - tax), null]]);
      // The note names what it credits, and takes no payment.
      expect((await req(suite.admin, 'GET', `${BILLS}/${note.id}/settlement`)).json().data).toEqual(
        expect.objectContaining({ creditFor: adv.id, creditForBillId: 'ADV-202403-DEMO', editable: false }),
      );
      expect((await req(suite.billing, 'POST', `${BILLS}/${note.id}/settles`, { amount: 1, paidOn: '2024-04-10', reference: 'X' })).statusCode).toBe(409);
      // What is left to credit is the total less the notes so far: one cent more is refused, exactly that is not.
      expect((await req(suite.billing, 'GET', `${BILLS}/${adv.id}/settlement`)).json().data.creditLeftMinor).toBe(total - 1000);
      await bad(
        { amountMinor: total - 1000 + 1, reason: 'Rest' },
        `At most ${eur(total - 1000)} is left to credit on this invoice: its total less the credit notes already issued.`,
      );
      const es = await call(suite.t.app, suite.billing, {
        method: 'POST',
        url: `${BILLS}/${adv.id}/credit`,
        headers: { language: 'es-ES' },
        payload: { amountMinor: total, reason: 'Rest' },
      });
      expect(es.json().status.message).toBe(
        `Queda como máximo ${formatMoney(total - 1000, 'EUR', 'es-ES')} por abonar en esta factura: su total menos las notas de abono ya emitidas.`,
      );
      const rest = await credit(suite.billing, adv.id, { amountMinor: total - 1000, reason: 'Rest' });
      expect(rest.statusCode).toBe(200);
      expect(rest.json().data.billId).toBe('CRN-202403-DEMO-2');
      expect(rest.json().data.version).toBe(2);
      await bad({ amountMinor: 1, reason: 'More' }, 'Nothing is left to credit on this invoice: its credit notes already come to its total.');
      expect((await req(suite.billing, 'GET', `${BILLS}/${adv.id}/settlement`)).json().data.creditLeftMinor).toBe(0);
      const credited = (
        await suite.t.db.query<{ c: string }>('SELECT (-sum(amount_incl_tax) * 100)::bigint::text AS c FROM invoices WHERE credit_for = $1', [adv.id])
      ).rows[0].c;
      expect(Number(credited)).toBe(total);
    });

    it("credits a paid invoice; a credit note, a deposit or another organisation's invoice is not credited", async () => {
      const dep = await req(suite.billing, 'POST', `${BILLS}/predeposit`, { amountMinor: 2500 });
      expect(dep.statusCode).toBe(200);
      const depId = dep.json().data.id as string;
      expect(
        (await req(suite.billing, 'POST', `${BILLS}/${depId}/settles`, { amount: 25, paidOn: '2024-04-10', reference: 'DEP-PAID' })).json().data.invoice.status,
      ).toBe('paid');
      expect((await credit(suite.billing, depId, { amountMinor: 1, reason: 'x' })).statusCode).toBe(409);
      const note = (
        await suite.t.db.query<{ id: string }>("SELECT id FROM invoices WHERE org_id = 'org-demo' AND type = 'credit' AND credit_for IS NOT NULL LIMIT 1")
      ).rows[0];
      expect((await credit(suite.billing, note.id, { amountMinor: 1, reason: 'x' })).statusCode).toBe(409);
      // A paid post-payment invoice of the seed.
      const paid = (
        await suite.t.db.query<{ id: string; total: string }>(
          "SELECT id, amount_incl_tax::text AS total FROM invoices WHERE org_id = 'org-demo' AND type = 'post_payment' AND status = 'paid' AND amount_incl_tax > 1 ORDER BY billing_date DESC LIMIT 1",
        )
      ).rows[0];
      const ok = await credit(suite.billing, paid.id, { amountMinor: cents(paid.total), reason: 'Full refund' });
      expect(ok.statusCode).toBe(200);
      expect(Math.round(ok.json().data.amountInclTax * 100)).toBe(-cents(paid.total));
      const otherOrg = (
        await suite.t.db.query<{ id: string }>("SELECT id FROM invoices WHERE org_id = 'org-other' AND status IN ('published', 'paid') LIMIT 1")
      ).rows[0];
      expect((await credit(suite.billing, otherOrg.id, { amountMinor: 1, reason: 'x' })).statusCode).toBe(404);
      expect((await credit(billingOther(), paid.id, { amountMinor: 1, reason: 'x' })).statusCode).toBe(404);
      expect((await credit(suite.user, paid.id, { amountMinor: 1, reason: 'x' })).statusCode).toBe(403);
      expect((await credit(suite.operator, paid.id, { amountMinor: 1, reason: 'x' })).statusCode).toBe(403);
      // Credit notes are listed under their type.
      const listed = (await req(suite.admin, 'POST', BILLS, { type: 'credit', pageSize: 100 })).json().data.items as Array<{ billId: string }>;
      expect(listed.map((i) => i.billId)).toEqual(expect.arrayContaining(['CRN-202403-DEMO-1', 'CRN-202403-DEMO-2']));
    });
  });

  describe('deposits', () => {
    it("an administrator requests a deposit without tax; paid, it counts into the organisation's deposit", async () => {
      clock = new Date('2024-05-03T08:00:00Z');
      const post = await invoiceOf('post_payment');
      const before = (await req(suite.admin, 'GET', `${BILLS}/${post.id}/settlement`)).json().data;
      const res = await req(suite.billing, 'POST', `${BILLS}/predeposit`, { amountMinor: 123_456, reason: 'Deposit for May' });
      expect(res.statusCode).toBe(200);
      const dep = res.json().data;
      expect(dep).toEqual(
        expect.objectContaining({
          type: 'predeposit',
          status: 'published',
          billId: 'DEP-202405-DEMO-1',
          billingCycle: '2024-05',
          taxAmount: 0,
          amountInclTax: 1234.56,
          amountExclTax: 1234.56,
          dueDate: '2024-05-13',
        }),
      );
      const mid = (await req(suite.admin, 'GET', `${BILLS}/${post.id}/settlement`)).json().data;
      expect(mid.depositRequestedMinor - before.depositRequestedMinor).toBe(123_456);
      const paid = await req(suite.billing, 'POST', `${BILLS}/${dep.id}/settles`, { amount: 1234.56, paidOn: '2024-05-03', reference: 'SEPA-DEP' });
      expect(paid.statusCode, paid.body).toBe(200);
      expect(paid.json().data.invoice.status).toBe('paid');
      const after = (await req(suite.admin, 'GET', `${BILLS}/${post.id}/settlement`)).json().data;
      expect(after.depositPaidMinor - before.depositPaidMinor).toBe(123_456);
      expect(after.depositRequestedMinor).toBe(before.depositRequestedMinor);
      // The second deposit of the month is its version 2.
      expect((await req(suite.billing, 'POST', `${BILLS}/predeposit`, { amountMinor: 1 })).json().data.billId).toBe('DEP-202405-DEMO-2');
    });

    it('refuses amounts outside 1 … what a line holds, and callers who do not administer finance', async () => {
      const dep = (s: Session, body: object) => req(s, 'POST', `${BILLS}/predeposit`, body);
      for (const [body, message] of [
        [{ amountMinor: 0 }, `Amount must be between 1 and ${DEPOSIT_MAX_MINOR.toLocaleString('en-US')}`],
        [{ amountMinor: DEPOSIT_MAX_MINOR + 1 }, `Amount must be between 1 and ${DEPOSIT_MAX_MINOR.toLocaleString('en-US')}`],
        [{ amountMinor: 10.5 }, 'Amount must be a whole number'],
        [{}, 'Amount is required'],
        [{ amountMinor: 5, reason: '' }, 'Reason is required'],
      ] as const) {
        const res = await dep(suite.billing, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().status.message).toMatch(message);
      }
      const max = await dep(billingOther(), { amountMinor: DEPOSIT_MAX_MINOR });
      expect(max.statusCode, max.body).toBe(200);
      expect(max.json().data.amountInclTax).toBe(DEPOSIT_MAX_MINOR / 100);
      expect((await dep(suite.user, { amountMinor: 5 })).statusCode).toBe(403);
      expect((await dep(suite.operator, { amountMinor: 5 })).statusCode).toBe(403);
    });
  });

  describe('settlement details', () => {
    const good = {
      settlementCustomer: 'Demo Logistics Settlement GmbH',
      bankName: 'Hafenbank',
      iban: 'GB82WEST12345698765432',
      bic: 'NWBKGB2L',
      creditLimitMinor: 250_000,
      currency: 'USD',
      taxRateBp: 2000,
    };
    const put = (s: Session, id: string, body: object) => req(s, 'PUT', `${BILLS}/${id}/settlement`, body);

    it('an administrator edits a draft: its tax and total again from its net, and the billing profile for the invoices to come', async () => {
      const post = await invoiceOf('post_payment');
      const res = await put(suite.billing, post.id, good);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual(expect.objectContaining({ ...good, status: 'draft', editable: true }));
      const inv = (
        await suite.t.db.query<{ net: string; tax: string; total: string; currency: string; customer: string; bank: object; limit: string }>(
          'SELECT amount_excl_tax::text AS net, tax_amount::text AS tax, amount_incl_tax::text AS total, currency, settlement_customer AS customer, bank_details AS bank, credit_limit::text AS limit FROM invoices WHERE id = $1',
          [post.id],
        )
      ).rows[0];
      expect(cents(inv.net)).toBe(cents(post.net));
      expect(cents(inv.tax)).toBe(roundDiv(cents(post.net) * 2000, 10000));
      expect(cents(inv.total)).toBe(cents(post.net) + roundDiv(cents(post.net) * 2000, 10000));
      expect(inv).toEqual(
        expect.objectContaining({
          currency: 'USD',
          customer: good.settlementCustomer,
          bank: { bank: 'Hafenbank', iban: good.iban, bic: good.bic },
          limit: '2500.00',
        }),
      );
      const profile = (
        await suite.t.db.query(
          "SELECT currency, tax_rate::text AS rate, settlement_customer AS customer, bank_details AS bank, credit_limit::text AS limit FROM billing_profiles WHERE org_id = 'org-demo'",
        )
      ).rows[0];
      expect(profile).toEqual({
        currency: 'USD',
        rate: '0.2000',
        customer: good.settlementCustomer,
        bank: { bank: 'Hafenbank', iban: good.iban, bic: good.bic },
        limit: '2500.00',
      });
      // The enterprise details show the same bank, currency and credit limit.
      const ent = (await req(suite.admin, 'GET', '/api/main/enterprises/selectByOrgCode/DEMO')).json().data;
      expect(ent).toEqual(expect.objectContaining({ currency: 'USD', creditLimitMinor: 250_000, bankName: 'Hafenbank', iban: good.iban, bic: good.bic }));
      expect(await countRows(suite.t.db, 'events', "type = 'invoice' AND subtype = 'settlement_updated' AND subject = $1", [post.id])).toBe(1);
      // Optional details cleared; the next deposit is asked in the profile's currency.
      const cleared = await put(suite.billing, post.id, {
        ...good,
        settlementCustomer: null,
        bankName: null,
        iban: null,
        bic: null,
        creditLimitMinor: null,
        currency: 'EUR',
        taxRateBp: 0,
      });
      expect(cleared.json().data).toEqual(expect.objectContaining({ settlementCustomer: null, iban: null, creditLimitMinor: null, taxRateBp: 0 }));
      expect((await suite.t.db.query<{ tax: string }>('SELECT tax_amount::text AS tax FROM invoices WHERE id = $1', [post.id])).rows[0].tax).toBe('0.00');
      expect((await put(suite.billing, post.id, { ...good, currency: 'GBP' })).statusCode).toBe(200);
      expect((await req(suite.billing, 'POST', `${BILLS}/predeposit`, { amountMinor: 100 })).json().data.currency).toBe('GBP');
    });

    it('refuses bad details naming the field and the rule, on both sides of each limit', async () => {
      const post = await invoiceOf('post_payment');
      const bad = async (patch: object, message: string | RegExp) => {
        const res = await put(suite.billing, post.id, { ...good, ...patch });
        expect(res.statusCode, JSON.stringify(patch)).toBe(400);
        expect(res.json().status.message).toMatch(message);
      };
      const fine = async (patch: object) => expect((await put(suite.billing, post.id, { ...good, ...patch })).statusCode, JSON.stringify(patch)).toBe(200);
      await bad({ settlementCustomer: '' }, 'Settlement customer is required');
      await bad({ settlementCustomer: 'x'.repeat(101) }, 'Settlement customer must be at most 100 characters long');
      await fine({ settlementCustomer: 'x'.repeat(100) });
      await bad({ bankName: 'b'.repeat(101) }, 'Bank must be at most 100 characters long');
      await fine({ bankName: 'b'.repeat(100) });
      await bad({ iban: 'GB82WEST12345698765433' }, 'This IBAN is not valid (its check digits do not match)');
      await bad({ iban: 'gb82WEST12345698765432' }, /^IBAN:? has the wrong format$/);
      await bad({ iban: 'NO938601111794' }, 'IBAN must be 15 to 34 characters long');
      await fine({ iban: 'NO9386011117947' });
      await bad({ iban: `LC55HEMM${'0'.repeat(27)}` }, 'IBAN must be at most 34 characters long');
      await fine({ iban: 'LC55HEMM000100010012001200023015' });
      await bad({ bic: 'NWBKGB2' }, 'BIC must be 8 to 11 characters long');
      await bad({ bic: 'NWBKGB2LXXXX' }, 'BIC must be at most 11 characters long');
      await fine({ bic: 'NWBKGB2LXXX' });
      await bad({ creditLimitMinor: -1 }, /^Credit limit must be between 0 and /);
      await fine({ creditLimitMinor: 0 });
      await bad({ creditLimitMinor: CREDIT_MAX_MINOR + 1 }, `Credit limit must be between 0 and ${CREDIT_MAX_MINOR.toLocaleString('en-US')}`);
      await fine({ creditLimitMinor: CREDIT_MAX_MINOR });
      await bad({ creditLimitMinor: 10.5 }, 'Credit limit must be a whole number');
      await bad({ currency: 'usd' }, /^Currency:? must be one of/);
      await bad({ currency: 'XXX' }, /^Currency:? must be one of/);
      await bad({ currency: 'JPY' }, /^Currency:? must be one of/);
      await bad({ taxRateBp: -1 }, 'Tax rate must be between 0 and 9,999');
      await bad({ taxRateBp: 10000 }, 'Tax rate must be between 0 and 9,999');
      await fine({ taxRateBp: 9999 });
      await bad({ taxRateBp: 19.5 }, 'Tax rate must be a whole number');
      await bad({ extra: 1 }, /^extra:? is not an accepted field/);
      const { bic: _bic, ...noBic } = good;
      expect((await put(suite.billing, post.id, noBic)).json().status.message).toMatch(/^BIC:? is required$/);
    });

    it('only a current draft is edited; users, operators and other organisations are kept out', async () => {
      const adv = await invoiceOf('advance');
      const published = await put(suite.billing, adv.id, good);
      expect(published.statusCode).toBe(409);
      expect(published.json().status.message).toMatch(/Only a draft/);
      expect((await req(suite.admin, 'GET', `${BILLS}/${adv.id}/settlement`)).json().data.editable).toBe(false);
      const post = await invoiceOf('post_payment');
      expect((await put(suite.user, post.id, good)).statusCode).toBe(403);
      expect((await put(suite.operator, post.id, good)).statusCode).toBe(403);
      expect((await req(suite.user, 'GET', `${BILLS}/${post.id}/settlement`)).statusCode).toBe(403);
      expect((await put(billingOther(), post.id, good)).statusCode).toBe(404);
      expect((await req(suite.other, 'GET', `${BILLS}/${post.id}/settlement`)).statusCode).toBe(404);
      // A correction makes the draft obsolete: its details are no longer edited.
      const v2 = (await req(suite.billing, 'POST', `${BILLS}/${post.id}/versions`, { reason: 'Recount' })).json().data;
      expect((await put(suite.billing, post.id, good)).statusCode).toBe(409);
      expect((await put(suite.billing, v2.id, good)).statusCode).toBe(200);
    });

    it('saving the enterprise details sets the billing profile the invoices to come are made with', async () => {
      const ent = (await req(suite.admin, 'GET', '/api/main/enterprises/selectByOrgCode/DEMO')).json().data;
      const body = {
        orgCode: 'DEMO',
        legalName: ent.legalName,
        currency: 'CHF',
        invoiceType: 'post_payment',
        creditLimitMinor: 99,
        bankName: 'Bergbank',
        iban: 'CH9300762011623852957',
        bic: 'POFICHBEXXX',
      };
      expect((await req(suite.admin, 'PUT', '/api/main/enterprises', body)).statusCode).toBe(200);
      const profile = (
        await suite.t.db.query(
          "SELECT currency, settlement_customer AS customer, bank_details AS bank, credit_limit::text AS limit FROM billing_profiles WHERE org_id = 'org-demo'",
        )
      ).rows[0];
      expect(profile).toEqual({ currency: 'CHF', customer: ent.legalName, bank: { bank: 'Bergbank', iban: body.iban, bic: body.bic }, limit: '0.99' });
      expect((await req(suite.admin, 'PUT', '/api/main/enterprises', { ...body, currency: 'JPY' })).statusCode).toBe(400);
    });
  });
});

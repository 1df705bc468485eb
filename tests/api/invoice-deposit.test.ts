/**
 * A paid deposit drawn on by the post-payment invoices (docs/decisions.md "A paid deposit drawn on when a post-payment
 * invoice is issued"): when a post-payment invoice is published it draws min(deposit left,
 * what it asks) in whole cents, as a settle of kind deposit; paid when that covers it; never twice, never below 0,
 * never another organisation's deposit nor one paid in another currency; a correction gives the draw back and the new version draws again; a credit
 * note and an advance invoice never draw. A deposit paid after invoices were issued pays them, oldest due first
 * (docs/decisions.md "A deposit paid after the invoices were issued pays them"). The invoices are the job's own, of
 * months the small seed bills nothing in; each test starts with no issued invoice left unpaid (payOpen), so a deposit
 * it pays reaches back only to the invoices it issued itself.
 */
import { extractText, getDocumentProxy } from 'unpdf';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advanceInvoice } from '../../server/billing/invoice-advance.js';
import { invoiceOrganisation } from '../../server/billing/invoice-job.js';
import { newId } from '../../server/db/ids.js';
import { BACK_OFFICE, call, countRows, DB_KINDS, inOrg, type Session, signedInSuite } from '../helper.js';

const BILLS = '/api/customer/cube/v2/api/customer/bills';

describe.each(DB_KINDS)('a paid deposit drawn on by post-payment invoices on %s', (kind) => {
  const suite = signedInSuite({ kind, config: { clock: () => clock } }, { billing: BACK_OFFICE });
  const billingOther = () => inOrg(suite.billing, 'OTHER');
  const clock = new Date('2024-06-10T09:00:00Z');
  const sims: Record<string, { id: string; iccid: string }> = {};
  const req = (s: Session, method: 'GET' | 'POST', url: string, payload?: object) => call(suite.t.app, s, { method, url, ...(payload ? { payload } : {}) });
  let month = 0;

  /** A new month of 2020 or 2021 (the small seed bills nothing then) with one bundle of `price` on one SIM of `org`. */
  async function newMonth(price: string, org: string, mode: 'postpaid' | 'prepaid'): Promise<{ cycle: string; at: Date }> {
    month += 1;
    const cycle = `${2020 + Math.floor((month - 1) / 12)}-${String(((month - 1) % 12) + 1).padStart(2, '0')}`;
    const sim = sims[org];
    await suite.t.db.query(
      `INSERT INTO bundle_orders (org_id, id, sim_id, iccid, type, payment_mode, name, sku, ordered_at, activated_at, expired_at, quota_kb, reset_cycle, status, price, currency)
       VALUES ($1, $2, $3, $4, $8, $9, 'Test bundle', 'T-BUNDLE', $5::timestamptz, $5::timestamptz, $6::timestamptz, NULL, 'MONTH', 'EXPIRED', $7, 'EUR')`,
      [org, newId(), sim.id, sim.iccid, `${cycle}-02T00:00:00Z`, `${cycle}-27T00:00:00Z`, price, mode === 'prepaid' ? 'BEFORE_BASIC' : 'AFTER_BUNDLE', mode],
    );
    const [y, m] = cycle.split('-').map(Number);
    return { cycle, at: new Date(Date.UTC(y, m, 1, 1)) };
  }

  /**
   * A post-payment draft made by the job for a new month: one postpaid bundle of `price` on one SIM of `org`; `twice`:
   * by two instances at once (one of them makes it).
   */
  async function draft(price: string, org = 'org-demo', twice = false): Promise<{ id: string; minor: number }> {
    const { cycle, at } = await newMonth(price, org, 'postpaid');
    const runs = await Promise.all(Array.from({ length: twice ? 2 : 1 }, () => invoiceOrganisation(suite.t.db, org, cycle, at)));
    const made = runs.filter((r) => r !== undefined);
    expect(made, cycle).toHaveLength(1);
    return { id: made[0].id, minor: Math.round(Number(made[0].total) * 100) };
  }

  /** A deposit of `minor` requested and paid in full through the routes. */
  async function paidDeposit(s: Session, minor: number): Promise<string> {
    const dep = await req(s, 'POST', `${BILLS}/predeposit`, { amountMinor: minor });
    expect(dep.statusCode, dep.body).toBe(200);
    const id = dep.json().data.id as string;
    const paid = await req(s, 'POST', `${BILLS}/${id}/settles`, { amount: minor / 100, paidOn: clock.toISOString().slice(0, 10), reference: 'SEPA-DEPOSIT' });
    expect(paid.json().data.invoice.status).toBe('paid');
    return id;
  }
  const settlement = async (s: Session, id: string) =>
    (await req(s, 'GET', `${BILLS}/${id}/settlement`)).json().data as { depositLeftMinor: number; depositAppliedMinor: number; depositPaidMinor: number };
  const publish = (s: Session, id: string) => req(s, 'POST', `${BILLS}/${id}/publish`);
  const settles = async (id: string) =>
    (await req(suite.billing, 'GET', `${BILLS}/${id}/settles`)).json().data as {
      items: Array<{ amount: number; kind: string; reference: string; recordedBy: string | null }>;
      paid: number;
      outstanding: number;
    };
  const statusOf = async (id: string) => (await suite.t.db.query<{ status: string }>('SELECT status FROM invoices WHERE id = $1', [id])).rows[0].status;
  const depositEvents = (id: string, subtype = 'deposit_applied') =>
    countRows(suite.t.db, 'events', "type = 'invoice' AND subtype = $1 AND subject = $2", [subtype, id]);
  const minorOf = (n: number) => Math.round(n * 100);

  /** Every issued post-payment or advance invoice of org-demo and org-other still asking for money paid by a bank payment of what it asks. */
  async function payOpen(): Promise<void> {
    for (const [org, s] of [
      ['org-demo', suite.billing],
      ['org-other', billingOther()],
    ] as const) {
      const open = await suite.t.db.query<{ id: string }>(
        "SELECT id FROM invoices WHERE org_id = $1 AND status = 'published' AND type IN ('post_payment', 'advance') ORDER BY id",
        [org],
      );
      for (const { id } of open.rows) {
        const { outstanding } = await settlesOf(s, id);
        const res = await req(s, 'POST', `${BILLS}/${id}/settles`, { amount: outstanding, paidOn: clock.toISOString().slice(0, 10), reference: 'SEPA-REST' });
        expect(res.json().data.invoice.status, res.body).toBe('paid');
      }
    }
  }
  const settlesOf = async (s: Session, id: string) => (await req(s, 'GET', `${BILLS}/${id}/settles`)).json().data as { outstanding: number };

  beforeAll(async () => {
    for (const org of ['org-demo', 'org-other'])
      sims[org] = (await suite.t.db.query<{ id: string; iccid: string }>('SELECT id, iccid FROM sims WHERE org_id = $1 ORDER BY id LIMIT 1', [org])).rows[0];
    // The seed's issued invoices still unpaid would take the deposits the tests pay.
    await payOpen();
  });
  afterEach(payOpen);

  it('no deposit: an invoice is published as before, nothing drawn', async () => {
    const inv = await draft('40.00');
    expect((await settlement(suite.billing, inv.id)).depositLeftMinor).toBe(0);
    expect((await publish(suite.billing, inv.id)).json().data.status).toBe('published');
    expect((await settles(inv.id)).items).toEqual([]);
    expect(await depositEvents(inv.id)).toBe(0);
  });

  it('a deposit smaller than the invoice pays part of it; the rest is paid as usual', async () => {
    await paidDeposit(suite.billing, 5000);
    const inv = await draft('100.00');
    expect(inv.minor).toBeGreaterThan(5000);
    expect((await settlement(suite.billing, inv.id)).depositLeftMinor).toBe(5000);
    const res = await publish(suite.billing, inv.id);
    expect(res.json().data.status).toBe('published');
    const s = await settles(inv.id);
    expect(s.items).toEqual([expect.objectContaining({ amount: 50, kind: 'deposit', reference: 'DEPOSIT', recordedBy: null })]);
    expect(minorOf(s.outstanding)).toBe(inv.minor - 5000);
    expect(await settlement(suite.billing, inv.id)).toEqual(expect.objectContaining({ depositLeftMinor: 0, depositAppliedMinor: 5000 }));
    const ev = (
      await suite.t.db.query<{ data: { amount: string; depositLeft: string } }>(
        "SELECT data FROM events WHERE type = 'invoice' AND subtype = 'deposit_applied' AND subject = $1",
        [inv.id],
      )
    ).rows;
    expect(ev.map((e) => [e.data.amount, e.data.depositLeft])).toEqual([['50.00', '0.00']]);
    // Paying what is still due, not a cent more, makes it paid.
    const over = await req(suite.billing, 'POST', `${BILLS}/${inv.id}/settles`, {
      amount: (inv.minor - 5000 + 1) / 100,
      paidOn: '2024-06-10',
      reference: 'SEPA-1',
    });
    expect(over.statusCode).toBe(400);
    const rest = await req(suite.billing, 'POST', `${BILLS}/${inv.id}/settles`, {
      amount: (inv.minor - 5000) / 100,
      paidOn: '2024-06-10',
      reference: 'SEPA-1',
    });
    expect(rest.json().data.invoice.status).toBe('paid');
  });

  it('a deposit of exactly the invoice pays it in full; one larger leaves the rest for the next invoice', async () => {
    const exact = await draft('20.00');
    await paidDeposit(suite.billing, exact.minor);
    expect((await publish(suite.billing, exact.id)).json().data.status).toBe('paid');
    expect(await depositEvents(exact.id, 'paid')).toBe(1);
    expect((await settlement(suite.billing, exact.id)).depositLeftMinor).toBe(0);

    const small = await draft('10.00');
    await paidDeposit(suite.billing, small.minor + 777);
    expect((await publish(suite.billing, small.id)).json().data.status).toBe('paid');
    expect(minorOf((await settles(small.id)).items[0].amount)).toBe(small.minor);
    expect((await settlement(suite.billing, small.id)).depositLeftMinor).toBe(777);
    // The next invoice takes the 7.77 left, and the deposit is then 0, not below.
    const next = await draft('30.00');
    expect((await publish(suite.billing, next.id)).json().data.status).toBe('published');
    expect(minorOf((await settles(next.id)).items[0].amount)).toBe(777);
    expect((await settlement(suite.billing, next.id)).depositLeftMinor).toBe(0);
  });

  it('drawn once: two publishes of one invoice at once, and two invoices at once, never spend the deposit twice', async () => {
    const a = await draft('25.00');
    const b = await draft('25.00');
    await paidDeposit(suite.billing, 1000);
    const same = await Promise.all([publish(suite.billing, a.id), publish(suite.billing, a.id)]);
    expect(same.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect((await settles(a.id)).items.filter((i) => i.kind === 'deposit').map((i) => minorOf(i.amount))).toEqual([1000]);
    expect(await depositEvents(a.id)).toBe(1);

    const c = await draft('25.00');
    const d = await draft('25.00');
    // a paid in full first: else the next deposit would reach back to it.
    await payOpen();
    await paidDeposit(suite.billing, 1500);
    await Promise.all([publish(suite.billing, b.id), publish(suite.billing, c.id), publish(suite.billing, d.id)]);
    const drawn = (await Promise.all([b, c, d].map(async (x) => (await settles(x.id)).items.reduce((n, i) => n + minorOf(i.amount), 0)))).sort((x, y) => x - y);
    expect(drawn).toEqual([0, 0, 1500]);
    expect((await settlement(suite.billing, b.id)).depositLeftMinor).toBe(0);
    // Two job runs of one month at once make one invoice; published twice at once, it draws once.
    await payOpen();
    await paidDeposit(suite.billing, 300);
    const e = await draft('5.00', 'org-demo', true);
    expect(await countRows(suite.t.db, 'invoice_settles', "kind = 'deposit' AND invoice_id = $1", [e.id])).toBe(0);
    await Promise.all([publish(suite.billing, e.id), publish(suite.billing, e.id)]);
    expect(await countRows(suite.t.db, 'invoice_settles', "kind = 'deposit' AND invoice_id = $1", [e.id])).toBe(1);
    // The database keeps a second draw of one invoice out whatever the code does.
    await expect(
      suite.t.db.query(
        "INSERT INTO invoice_settles (org_id, invoice_id, amount, currency, paid_on, reference, kind) VALUES ('org-demo', $1, 1, 'EUR', '2024-06-10', 'X', 'deposit')",
        [e.id],
      ),
    ).rejects.toThrow();
  });

  it('a correction gives the draw back; its new version draws again when issued: nothing lost, nothing counted twice', async () => {
    const inv = await draft('60.00');
    await paidDeposit(suite.billing, 2000);
    await publish(suite.billing, inv.id);
    expect((await settlement(suite.billing, inv.id)).depositLeftMinor).toBe(0);
    // A draw on the deposit is no payment: the invoice may still be corrected.
    const v2 = await req(suite.billing, 'POST', `${BILLS}/${inv.id}/versions`, { reason: 'Late CDRs' });
    expect(v2.statusCode, v2.body).toBe(200);
    const v2id = v2.json().data.id as string;
    expect(await statusOf(inv.id)).toBe('obsolete');
    expect(await depositEvents(inv.id, 'deposit_released')).toBe(1);
    expect((await settlement(suite.billing, v2id)).depositLeftMinor).toBe(2000);
    // The obsolete version keeps its history: its draw is still listed on it.
    expect((await settles(inv.id)).items.map((i) => i.kind)).toEqual(['deposit']);
    expect((await publish(suite.billing, v2id)).json().data.status).toBe('published');
    expect(minorOf((await settles(v2id)).items[0].amount)).toBe(2000);
    expect((await settlement(suite.billing, v2id)).depositLeftMinor).toBe(0);
    // A version with a payment of its own is not corrected.
    await req(suite.billing, 'POST', `${BILLS}/${v2id}/settles`, { amount: 1, paidOn: '2024-06-10', reference: 'SEPA-2' });
    expect((await req(suite.billing, 'POST', `${BILLS}/${v2id}/versions`, {})).statusCode).toBe(409);
  });

  it('a credit note and an advance invoice never draw on the deposit', async () => {
    const inv = await draft('45.00');
    await publish(suite.billing, inv.id);
    // Paid before the deposit, which would otherwise pay it.
    await payOpen();
    await paidDeposit(suite.billing, 999);
    const note = await req(suite.billing, 'POST', `${BILLS}/${inv.id}/credit`, { amountMinor: 500, reason: 'Outage' });
    expect(note.statusCode, note.body).toBe(200);
    const noteId = note.json().data.id as string;
    expect((await settles(noteId)).items).toEqual([]);
    expect(await settlement(suite.billing, noteId)).toEqual(expect.objectContaining({ depositLeftMinor: 999, depositAppliedMinor: 0 }));
    // An advance invoice of the job (its prepaid bundles billed ahead) is published without a draw.
    const { cycle, at } = await newMonth('12.00', 'org-demo', 'prepaid');
    const adv = await suite.t.db.tx((q) => advanceInvoice(q, 'org-demo', cycle, at));
    expect(adv).toBeDefined();
    expect((await publish(suite.billing, adv!.id)).json().data.status).toBe('published');
    expect((await settles(adv!.id)).items).toEqual([]);
    expect((await settlement(suite.billing, inv.id)).depositLeftMinor).toBe(999);
  });

  it("another organisation's deposit is never drawn; its own invoices draw only its own", async () => {
    const mine = await draft('45.00');
    const left = (await settlement(suite.billing, mine.id)).depositLeftMinor;
    const theirs = await draft('10.00', 'org-other');
    await paidDeposit(billingOther(), 100_000);
    expect((await settlement(suite.billing, mine.id)).depositLeftMinor).toBe(left);
    await publish(suite.billing, mine.id);
    expect(minorOf((await settles(mine.id)).items[0]?.amount ?? 0)).toBe(left);
    expect((await publish(billingOther(), theirs.id)).json().data.status).toBe('paid');
    expect((await settlement(billingOther(), theirs.id)).depositLeftMinor).toBe(100_000 - theirs.minor);
    expect((await req(billingOther(), 'GET', `${BILLS}/${mine.id}/settlement`)).statusCode).toBe(404);
  });

  it('a deposit paid in another currency is not drawn by an invoice in this one', async () => {
    const currency = (c: string) => suite.t.db.query("UPDATE billing_profiles SET currency = $1 WHERE org_id = 'org-demo'", [c]);
    await currency('USD');
    await paidDeposit(suite.billing, 700);
    await currency('EUR');
    const eur = await draft('15.00');
    expect((await settlement(suite.billing, eur.id)).depositLeftMinor).toBe(0);
    await publish(suite.billing, eur.id);
    expect((await settles(eur.id)).items).toEqual([]);
    await currency('USD');
    const usd = await draft('15.00');
    await currency('EUR');
    expect((await settlement(suite.billing, usd.id)).depositLeftMinor).toBe(700);
    await publish(suite.billing, usd.id);
    expect((await settles(usd.id)).items).toEqual([expect.objectContaining({ amount: 7, kind: 'deposit' })]);
  });

  it("the PDF lists the draw on the deposit among the payments, in the reader's language", async () => {
    const inv = await draft('70.00');
    await paidDeposit(suite.billing, 1234);
    await publish(suite.billing, inv.id);
    for (const [lang, words] of [
      ['en-US', 'Paid from deposit'],
      ['zh-CN', '已从押金支付'],
      ['zh-TW', '已從押金支付'],
      ['es-ES', 'Pagado con el depósito'],
    ] as const) {
      const res = await call(suite.t.app, suite.billing, { method: 'GET', url: `${BILLS}/${inv.id}/download/pdf`, headers: { language: lang } });
      expect(res.statusCode).toBe(200);
      const text = (await extractText(await getDocumentProxy(new Uint8Array(res.rawPayload)), { mergePages: true })).text;
      expect(text, lang).toContain(words);
      expect(text, lang).not.toContain('DEPOSIT');
    }
  });
  describe('a deposit paid after the invoices were issued', () => {
    /** A deposit of `minor` requested through the route (not yet paid): its id and bill id. */
    async function askDeposit(s: Session, minor: number): Promise<{ id: string; billId: string }> {
      const dep = await req(s, 'POST', `${BILLS}/predeposit`, { amountMinor: minor });
      expect(dep.statusCode, dep.body).toBe(200);
      return { id: dep.json().data.id as string, billId: dep.json().data.billId as string };
    }
    const pay = (s: Session, id: string, minor: number) =>
      req(s, 'POST', `${BILLS}/${id}/settles`, { amount: minor / 100, paidOn: clock.toISOString().slice(0, 10), reference: 'SEPA-DEP' });
    const drawsOf = async (id: string) =>
      (
        await suite.t.db.query<{ minor: number }>(
          "SELECT (amount * 100)::int AS minor FROM invoice_settles WHERE invoice_id = $1 AND kind = 'deposit' ORDER BY id",
          [id],
        )
      ).rows.map((r) => r.minor);
    const appliedEvents = async (id: string) =>
      (
        await suite.t.db.query<{ data: Record<string, unknown> }>(
          "SELECT data FROM events WHERE type = 'invoice' AND subtype = 'deposit_applied' AND subject = $1 ORDER BY id",
          [id],
        )
      ).rows.map((r) => r.data);
    /** A post-payment invoice of `price` issued on `day` of June 2024 (due 10 days later). */
    async function issued(price: string, day: number): Promise<{ id: string; minor: number }> {
      const inv = await draft(price);
      const was = clock.getTime();
      clock.setTime(Date.parse(`2024-06-${String(day).padStart(2, '0')}T09:00:00Z`));
      try {
        expect((await publish(suite.billing, inv.id)).json().data.status).toBe('published');
      } finally {
        clock.setTime(was);
      }
      return inv;
    }

    it('pays the issued invoices still asking, oldest due first, until it is spent; drafts, advance invoices and other currencies wait', async () => {
      // Issued later but due first: the order is the due date's, not the order of issue.
      const later = await issued('30.00', 8);
      const sooner = await issued('20.00', 3);
      // One paid in part by the bank: the deposit pays only its rest.
      const part = await issued('40.00', 9);
      expect((await req(suite.billing, 'POST', `${BILLS}/${part.id}/settles`, { amount: 10, paidOn: '2024-06-10', reference: 'SEPA-PART' })).statusCode).toBe(
        200,
      );
      const waiting = await draft('10.00');
      const { cycle, at } = await newMonth('12.00', 'org-demo', 'prepaid');
      const adv = (await suite.t.db.tx((q) => advanceInvoice(q, 'org-demo', cycle, at)))!;
      await publish(suite.billing, adv.id);
      const theirs = await draft('10.00', 'org-other');
      await publish(billingOther(), theirs.id);
      // org-other's own deposit (of an earlier test) may pay it at its publish; org-demo's never does.
      const theirDraws = await drawsOf(theirs.id);

      // Enough for sooner, later, and 1.00 of part.
      const minor = sooner.minor + later.minor + 100;
      const dep = await askDeposit(suite.billing, minor);
      // Paid in part, a deposit is not yet a deposit: nothing drawn.
      const first = (await pay(suite.billing, dep.id, 1)).json().data;
      expect(first.invoice.status).toBe('published');
      expect(first.depositDraws).toEqual([]);
      expect(await drawsOf(sooner.id)).toEqual([]);
      const paid = await pay(suite.billing, dep.id, minor - 1);
      expect(paid.json().data.invoice.status).toBe('paid');
      // The answer names what the deposit paid, in the order drawn, for the console to tell the person; the fields
      // of the answer before it are all still there.
      const billOf = async (id: string) => (await suite.t.db.query<{ bill_id: string }>('SELECT bill_id FROM invoices WHERE id = $1', [id])).rows[0].bill_id;
      const draw = async (inv: { id: string }, minorDrawn: number, whole: boolean) => ({
        invoiceId: inv.id,
        billId: await billOf(inv.id),
        amount: minorDrawn / 100,
        currency: paid.json().data.invoice.currency,
        paid: whole,
      });
      expect(paid.json().data.depositDraws).toEqual([
        await draw(sooner, sooner.minor, true),
        await draw(later, later.minor, true),
        await draw(part, 100, false),
      ]);
      expect(Object.keys(paid.json().data)).toEqual(expect.arrayContaining(['items', 'paid', 'outstanding', 'invoice']));

      expect(await drawsOf(sooner.id)).toEqual([sooner.minor]);
      expect(await drawsOf(later.id)).toEqual([later.minor]);
      expect(await drawsOf(part.id)).toEqual([100]);
      expect([await statusOf(sooner.id), await statusOf(later.id), await statusOf(part.id)]).toEqual(['paid', 'paid', 'published']);
      expect(minorOf((await settles(part.id)).outstanding)).toBe(part.minor - 1000 - 100);
      for (const id of [waiting.id, adv.id]) expect(await drawsOf(id)).toEqual([]);
      expect(await drawsOf(theirs.id)).toEqual(theirDraws);
      expect((await settlement(suite.billing, part.id)).depositLeftMinor).toBe(0);
      // The events say which deposit paid, and what it left, in the order drawn; paid where it covered the invoice.
      const left = (after: number) => (after / 100).toFixed(2);
      expect(await appliedEvents(sooner.id)).toEqual([
        expect.objectContaining({ amount: left(sooner.minor), depositLeft: left(minor - sooner.minor), depositId: dep.id, depositBillId: dep.billId }),
      ]);
      expect(await appliedEvents(later.id)).toEqual([expect.objectContaining({ amount: left(later.minor), depositLeft: left(100), depositId: dep.id })]);
      expect(await appliedEvents(part.id)).toEqual([expect.objectContaining({ amount: '1.00', depositLeft: '0.00', depositId: dep.id })]);
      expect([await depositEvents(sooner.id, 'paid'), await depositEvents(later.id, 'paid'), await depositEvents(part.id, 'paid')]).toEqual([1, 1, 0]);
    });

    it('an invoice the deposit paid in part at its publish draws again on the next deposit, once for each deposit', async () => {
      await paidDeposit(suite.billing, 1000);
      const inv = await issued('50.00', 10);
      expect(await drawsOf(inv.id)).toEqual([1000]);
      const rest = inv.minor - 1000;
      const dep = await paidDeposit(suite.billing, rest + 500);
      expect(await drawsOf(inv.id)).toEqual([1000, rest]);
      expect(await statusOf(inv.id)).toBe('paid');
      expect((await settlement(suite.billing, inv.id)).depositLeftMinor).toBe(500);
      // The database keeps out a second draw of one invoice for the same deposit, and a second at its publish.
      const draw = (depositId: string | null) =>
        suite.t.db.query(
          "INSERT INTO invoice_settles (org_id, invoice_id, amount, currency, paid_on, reference, kind, deposit_id) VALUES ('org-demo', $1, 1, 'EUR', '2024-06-10', 'X', 'deposit', $2)",
          [inv.id, depositId],
        );
      await expect(draw(dep)).rejects.toThrow();
      await expect(draw(null)).rejects.toThrow();
      // A bank payment names no deposit.
      await expect(
        suite.t.db.query(
          "INSERT INTO invoice_settles (org_id, invoice_id, amount, currency, paid_on, reference, kind, deposit_id) VALUES ('org-demo', $1, 1, 'EUR', '2024-06-10', 'X', 'payment', $2)",
          [inv.id, dep],
        ),
      ).rejects.toThrow();
      // The 5.00 left goes to the next invoice issued.
      const next = await issued('30.00', 10);
      expect(await drawsOf(next.id)).toEqual([500]);
    });

    it('a correction gives back every draw of the version it replaces', async () => {
      await paidDeposit(suite.billing, 1000);
      const inv = await issued('60.00', 10);
      await paidDeposit(suite.billing, 1500);
      expect(await drawsOf(inv.id)).toEqual([1000, 1500]);
      expect(await statusOf(inv.id)).toBe('published');
      const v2 = await req(suite.billing, 'POST', `${BILLS}/${inv.id}/versions`, { reason: 'Late CDRs' });
      expect(v2.statusCode, v2.body).toBe(200);
      const v2id = v2.json().data.id as string;
      const released = (
        await suite.t.db.query<{ data: { amount: string } }>(
          "SELECT data FROM events WHERE type = 'invoice' AND subtype = 'deposit_released' AND subject = $1",
          [inv.id],
        )
      ).rows;
      expect(released.map((r) => r.data.amount)).toEqual(['25.00']);
      expect((await settlement(suite.billing, v2id)).depositLeftMinor).toBe(2500);
      // A draft is not drawn on by a deposit paid meanwhile; its publish draws what is left.
      await paidDeposit(suite.billing, 100);
      expect(await drawsOf(v2id)).toEqual([]);
      await publish(suite.billing, v2id);
      expect(await drawsOf(v2id)).toEqual([2600]);
    });

    it('two deposits paid at once pay an invoice no more than it asks', async () => {
      const inv = await issued('20.00', 10);
      const a = await askDeposit(suite.billing, inv.minor);
      const b = await askDeposit(suite.billing, inv.minor);
      const res = await Promise.all([pay(suite.billing, a.id, inv.minor), pay(suite.billing, b.id, inv.minor)]);
      expect(res.map((r) => r.statusCode)).toEqual([200, 200]);
      expect(await drawsOf(inv.id)).toEqual([inv.minor]);
      expect(await statusOf(inv.id)).toBe('paid');
      expect((await settlement(suite.billing, inv.id)).depositLeftMinor).toBe(inv.minor);
      // The deposit left stays for the next invoice, rather than reaching one already paid.
      const next = await issued('30.00', 10);
      expect(await drawsOf(next.id)).toEqual([inv.minor]);
    });
  });
});

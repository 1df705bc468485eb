/**
 * An invoice's transitions (docs/decisions.md "Invoices made by the monthly job"): publish (drawing on the
 * organisation's paid deposit), settle, correct, a credit note and a deposit request, with the state each requires and
 * the event each writes. The invoice routes (bill-routes.ts, bill-types-routes.ts) and the demo seed
 * (server/db/seed/invoices.ts) both move invoices through these, so the demo's states are the routes' own.
 */
import { dueDateOf, major, minorOf, type DepositDraw } from '../../common/billing.js';
import { CODES } from '../../common/errors.js';
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { appendEvents, type NewEvent } from '../events/event-log.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { takeOrgTurn } from '../org/org-repo.js';
import { addSettle, hasPayments, lockedInvoice, markPaid, openPostPaymentIds, publishInvoice, settledMinor, type InvoiceState } from './bill-repo.js';
import { CREDITABLE_TYPES, creditLeftMinor, depositOf, insertCreditNote, insertDeposit, nextVersion } from './bill-types-repo.js';
import { typedBillId } from './invoice-advance.js';
import { correctInvoice, dropStaleCorrection, profileOf, type MadeInvoice, type RunOptions } from './invoice-job.js';

/** 409 saying what the invoice's state does not allow (common/locales errors.invoiceNot…). */
const STATE_ERRORS = {
  publish: 'errors.invoiceNotDraft',
  preview: 'errors.invoiceNotDraft',
  settle: 'errors.invoiceNotPublished',
  correct: 'errors.invoiceNotCorrectable',
};
export const wrongState = (status: string, action: keyof typeof STATE_ERRORS, params: Record<string, unknown> = {}) =>
  new ApiError(409, CODES.conflict, { status, action, ...params }, STATE_ERRORS[action]);

/** The invoice of this organisation, locked for a transition in q's transaction; 404 for any other. */
export async function lockInvoice(q: Queryable, orgId: string, id: string): Promise<InvoiceState> {
  const row = await lockedInvoice(q, orgId, id);
  if (!row) throw notFound('invoice', id);
  return row;
}

/** The reference of a deposit application (a settle of kind deposit); the pages and the PDF name it in the reader's words. */
export const DEPOSIT_REFERENCE = 'DEPOSIT';

/**
 * A draft issued at `now` (in q's transaction): due 10 days later or at the month's end, whichever is earlier. A
 * post-payment invoice then draws on the organisation's paid deposit (drawDeposit). The organisation is locked first,
 * as the credit note, the deposit request and a payment lock it: two invoices issued at once, or an invoice issued
 * while a deposit is being paid, draw on the deposit one after the other, so it is never spent twice.
 */
export async function publishBill(q: Queryable, orgId: string, id: string, now: Date): Promise<void> {
  await takeOrgTurn(q, orgId);
  const inv = await lockInvoice(q, orgId, id);
  if (inv.status !== 'draft') throw wrongState(inv.status, 'publish');
  const due = dueDateOf(now);
  await publishInvoice(q, orgId, id, now, now.toISOString().slice(0, 10), due);
  const events: NewEvent[] = [
    {
      orgId,
      type: 'invoice',
      subtype: 'published',
      subject: id,
      at: now,
      data: { billId: inv.billId, version: inv.version, dueDate: due, amountInclTax: inv.total, currency: inv.currency },
    },
  ];
  if (inv.type === 'post_payment') events.push(...(await drawDeposit(q, orgId, inv, now)).events);
  await appendEvents(q, events);
}

/** The deposit invoice whose payment occasions a draw (null: the invoice's own publish). */
type Occasion = { id: string; billId: string } | null;

/**
 * The invoice's draw on the deposit, in q's transaction under the organisation's lock: min(deposit left in the
 * invoice's currency, what the invoice still asks) in whole cents, recorded as a settle of kind deposit paid today (at
 * most one per invoice and occasion, by the database's unique index); the invoice paid when that covers it. The
 * events to append (deposit_applied, and paid) and the deposit left after it. No events when there is no deposit
 * left or nothing to pay.
 */
async function drawDeposit(
  q: Queryable,
  orgId: string,
  inv: InvoiceState,
  now: Date,
  from: Occasion = null,
): Promise<{ events: NewEvent[]; leftMinor: number }> {
  const dueMinor = minorOf(inv.total) - (await settledMinor(q, orgId, inv.id));
  const { leftMinor } = await depositOf(q, orgId, inv.currency);
  const minor = Math.min(leftMinor, dueMinor);
  if (minor <= 0) return { events: [], leftMinor };
  const paidOn = now.toISOString().slice(0, 10);
  const drawn = await addSettle(q, {
    orgId,
    invoiceId: inv.id,
    cents: minor,
    currency: inv.currency,
    paidOn,
    reference: DEPOSIT_REFERENCE,
    recordedBy: null,
    at: now,
    kind: 'deposit',
    depositId: from?.id ?? null,
  });
  if (!drawn) return { events: [], leftMinor };
  const base = { orgId, type: 'invoice' as const, subject: inv.id, at: now };
  const occasion = from ? { depositId: from.id, depositBillId: from.billId } : {};
  const events: NewEvent[] = [
    {
      ...base,
      subtype: 'deposit_applied',
      data: {
        billId: inv.billId,
        version: inv.version,
        amount: major(minor),
        currency: inv.currency,
        depositLeft: major(leftMinor - minor),
        paidOn,
        ...occasion,
      },
    },
  ];
  if (minor === dueMinor) {
    await markPaid(q, orgId, inv.id, now);
    events.push({ ...base, subtype: 'paid', data: { billId: inv.billId, version: inv.version, amount: inv.total, currency: inv.currency, paidOn } });
  }
  return { events, leftMinor: leftMinor - minor };
}

/**
 * A deposit just paid reaches back (docs/decisions.md "A deposit paid after the invoices were issued pays them"): the
 * organisation's issued post-payment invoices in its currency that still ask for money draw on the deposit left,
 * oldest due first, each as at its publish, until nothing is left. In the payment's transaction, under the
 * organisation's lock; each invoice locked and its state looked at again (a correction may have made it obsolete).
 */
async function reachBack(q: Queryable, orgId: string, dep: InvoiceState, now: Date): Promise<NewEvent[]> {
  const events: NewEvent[] = [];
  for (const id of await openPostPaymentIds(q, orgId, dep.currency)) {
    const inv = await lockInvoice(q, orgId, id);
    if (inv.status !== 'published' || !inv.isCurrent) continue;
    const drawn = await drawDeposit(q, orgId, inv, now, { id: dep.id, billId: dep.billId });
    events.push(...drawn.events);
    if (drawn.leftMinor <= 0) break;
  }
  return events;
}

/**
 * A payment of a published invoice recorded at `now` (in q's transaction): in whole cents, not above what is still
 * due, paid on a day not after today; the invoice is paid when its payments reach its total. A deposit invoice so paid
 * reaches back to the invoices issued before it (reachBack). The organisation is locked first, as publish locks it.
 * Answers the draws of that reach back (none for any other payment), for the person to be told what the deposit paid.
 */
export async function settleBill(
  q: Queryable,
  s: { orgId: string; id: string; amount: number; paidOn: string; reference: string; recordedBy: string; now: Date },
): Promise<{ depositDraws: DepositDraw[] }> {
  const today = s.now.toISOString().slice(0, 10);
  if (s.paidOn > today) throw invalid('paidOn', 'maximum', { limit: today });
  await takeOrgTurn(q, s.orgId);
  const inv = await lockInvoice(q, s.orgId, s.id);
  // A credit note (negative) takes no payment.
  if (inv.status !== 'published' || inv.type === 'credit') throw wrongState(inv.status, 'settle');
  // Cents as integers: the payment may not exceed what is still due.
  const cents = Math.round(s.amount * 100);
  if (Math.abs(s.amount * 100 - cents) > 1e-6) throw invalid('amount', 'cents');
  const dueCents = minorOf(inv.total) - (await settledMinor(q, s.orgId, s.id));
  if (cents > dueCents) throw invalid('amount', 'maximum', { limit: major(dueCents) });
  await addSettle(q, {
    orgId: s.orgId,
    invoiceId: s.id,
    cents,
    currency: inv.currency,
    paidOn: s.paidOn,
    reference: s.reference.trim(),
    recordedBy: s.recordedBy,
    at: s.now,
  });
  const events: NewEvent[] = [
    {
      orgId: s.orgId,
      type: 'invoice',
      subtype: 'settled',
      subject: s.id,
      at: s.now,
      data: { billId: inv.billId, version: inv.version, amount: major(cents), currency: inv.currency, paidOn: s.paidOn },
    },
  ];
  if (cents === dueCents) {
    await markPaid(q, s.orgId, s.id, s.now);
    events.push({
      orgId: s.orgId,
      type: 'invoice',
      subtype: 'paid',
      subject: s.id,
      at: s.now,
      data: { billId: inv.billId, version: inv.version, amount: inv.total, currency: inv.currency, paidOn: s.paidOn },
    });
    if (inv.type === 'predeposit') events.push(...(await reachBack(q, s.orgId, inv, s.now)));
  }
  await appendEvents(q, events);
  const paid = new Set(events.filter((e) => e.subtype === 'paid').map((e) => e.subject));
  const depositDraws = events
    .filter((e) => e.subtype === 'deposit_applied')
    .map((e) => {
      const d = e.data as { billId: string; amount: string; currency: string };
      return { invoiceId: String(e.subject), billId: d.billId, amount: Number(d.amount), currency: d.currency, paid: paid.has(e.subject) };
    });
  return { depositDraws };
}

/**
 * Why this version may not be corrected (an error to throw), or undefined: it must be the current version of a
 * post-payment invoice, a draft or published, with no payment (a draw on the deposit is no payment: the correction
 * gives it back and the new version draws again when issued).
 */
async function refusal(q: Queryable, orgId: string, inv: InvoiceState): Promise<ApiError | undefined> {
  if (!inv.isCurrent || (inv.status !== 'draft' && inv.status !== 'published') || inv.type !== 'post_payment') return wrongState(inv.status, 'correct');
  if (await hasPayments(q, orgId, inv.id)) return wrongState(inv.status, 'correct');
  return undefined;
}

/**
 * A correction at `now`: the next version made again from the month's bundles and usage, in the job's short batches
 * (correctInvoice); the version corrected stays current until the last of them, which asks again whether it may be
 * corrected. 409 when it may not (a stale run of a correction of it is dropped then), or while another correction of
 * it is being made. opts.stopAfter stops after that
 * many batches (undefined is answered then, as by a crashed instance); a later call takes the run over once stale.
 */
export async function correctBill(
  db: Db,
  orgId: string,
  id: string,
  reason: string | null,
  now: Date,
  opts: RunOptions = {},
): Promise<MadeInvoice | undefined> {
  const inv = await lockInvoice(db, orgId, id);
  const no = await refusal(db, orgId, inv);
  if (no) {
    await dropStaleCorrection(db, orgId, inv, now, opts.staleMs);
    throw no;
  }
  const made = await correctInvoice(
    db,
    orgId,
    inv,
    reason,
    now,
    async (q) => {
      const again = await lockedInvoice(q, orgId, id);
      return again ? refusal(q, orgId, again) : notFound('invoice', id);
    },
    opts,
  );
  if (!made && opts.stopAfter === undefined) throw wrongState(inv.status, 'correct', { inProgress: true });
  return made;
}

/** What may be credited: a published or paid post-payment or advance invoice, its current version. */
const notCreditable = (status: string, type: string) => new ApiError(409, CODES.conflict, { status, type, action: 'credit' }, 'errors.invoiceNotCreditable');
/** 400 saying, as money in the caller's language, what is left to credit (nothing, once the notes come to the total). */
const creditAboveLeft = (leftMinor: number, currency: string) =>
  new ApiError(400, CODES.validation, { left: { minor: leftMinor, currency } }, leftMinor > 0 ? 'errors.creditAboveLeft' : 'errors.creditNothingLeft', {
    field: 'amountMinor',
    rule: 'maximum',
    limit: leftMinor,
  });

/**
 * A credit note of `amountMinor` (tax included) against invoice `of`, issued at `now` in q's transaction: at most what
 * the invoice invoiced less its earlier credit notes. It is issued as it is made, never published, so it never draws
 * on the deposit. The new note's id.
 */
export async function creditBill(q: Queryable, c: { orgId: string; of: string; amountMinor: number; reason: string; now: Date }): Promise<string> {
  // The organisation first: credit notes of one month are numbered one at a time, whichever invoice they credit.
  await takeOrgTurn(q, c.orgId);
  const inv = await lockInvoice(q, c.orgId, c.of);
  if (!CREDITABLE_TYPES.includes(inv.type) || !inv.isCurrent || (inv.status !== 'published' && inv.status !== 'paid'))
    throw notCreditable(inv.status, inv.type);
  const left = Math.max(0, (await creditLeftMinor(q, c.orgId, c.of)) ?? 0);
  if (c.amountMinor > left) throw creditAboveLeft(left, inv.currency);
  const p = (await profileOf(q, c.orgId))!;
  const version = await nextVersion(q, c.orgId, inv.billingCycle, 'credit');
  const note = { id: newId(), billId: typedBillId('CRN', p.code, inv.billingCycle, version) };
  const made = await insertCreditNote(q, {
    orgId: c.orgId,
    of: c.of,
    ...note,
    version,
    grossMinor: c.amountMinor,
    reason: c.reason.trim(),
    now: c.now,
    due: dueDateOf(c.now),
  });
  if (!made) throw new ApiError(409, CODES.conflict);
  await appendEvents(q, [
    {
      orgId: c.orgId,
      type: 'invoice',
      subtype: 'credited',
      subject: note.id,
      at: c.now,
      data: {
        billId: note.billId,
        type: 'credit',
        creditFor: c.of,
        creditForBillId: inv.billId,
        amountInclTax: major(-c.amountMinor),
        currency: inv.currency,
        version,
      },
    },
  ]);
  return note.id;
}

/** A deposit request of `amountMinor` (no tax), issued at `now` for its month in q's transaction: the new invoice's id. */
export async function requestDeposit(q: Queryable, d: { orgId: string; amountMinor: number; reason: string | null; now: Date }): Promise<string> {
  const cycle = d.now.toISOString().slice(0, 7);
  await takeOrgTurn(q, d.orgId);
  const p = (await profileOf(q, d.orgId))!;
  const version = await nextVersion(q, d.orgId, cycle, 'predeposit');
  const dep = { id: newId(), billId: typedBillId('DEP', p.code, cycle, version) };
  if (!(await insertDeposit(q, { orgId: d.orgId, ...dep, version, minor: d.amountMinor, reason: d.reason, now: d.now, due: dueDateOf(d.now), cycle })))
    throw new ApiError(409, CODES.conflict);
  await appendEvents(q, [
    {
      orgId: d.orgId,
      type: 'invoice',
      subtype: 'created',
      subject: dep.id,
      at: d.now,
      data: {
        billId: dep.billId,
        type: 'predeposit',
        version,
        billingCycle: cycle,
        status: 'published',
        amountInclTax: major(d.amountMinor),
        currency: p.currency,
      },
    },
  ]);
  return dep.id;
}

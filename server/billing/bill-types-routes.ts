/**
 * Credit notes, deposit requests and settlement details on the customer API (docs/decisions.md "Advance,
 * credit and predeposit invoices, and the settlement details"). The advance invoice is the monthly job's
 * (invoice-advance.ts). Money in the bodies is integer minor units; the SQL is in bill-types-repo.ts. The rights are
 * the customer-bill-cube actions credit, deposit and settlement (common/permissions.ts): administrators'.
 */
import type { FastifyRequest } from 'fastify';
import { CURRENCIES } from '../../common/currencies.js';
import { CREDIT_MAX_MINOR, ibanOk, type Settlement } from '../../common/enterprise.js';
import { CODES } from '../../common/errors.js';
import { appendEvents } from '../events/event-log.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { nowOf } from '../http/clock.js';
import { depositAppliedMinor } from './bill-repo.js';
import { BASE, INVOICE_RESPONSE, invoiceRecord, invoiceRoute } from './bill-routes.js';
import { creditBill, requestDeposit } from './invoice-lifecycle.js';
import { creditLeftMinor, depositOf, invoiceSettlement, saveSettlement } from './bill-types-repo.js';
const notEditable = (status: string) => new ApiError(409, CODES.conflict, { status, action: 'settlement' }, 'errors.invoiceNotEditable');

const MINOR = { type: 'integer', minimum: 1, maximum: CREDIT_MAX_MINOR } as const;
/** A deposit's one line holds numeric(12, 4): at most 99,999,999.99 in major units. */
export const DEPOSIT_MAX_MINOR = 9_999_999_999;
const REASON = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' } as const;

/** Settlement details as the body gives them: null clears an optional one. */
const SETTLEMENT_FIELDS = {
  settlementCustomer: { type: ['string', 'null'], minLength: 1, maxLength: 100, pattern: '\\S' },
  bankName: { type: ['string', 'null'], minLength: 1, maxLength: 100, pattern: '\\S' },
  iban: { type: ['string', 'null'], minLength: 15, maxLength: 34, pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$' },
  bic: { type: ['string', 'null'], minLength: 8, maxLength: 11, pattern: '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$' },
  creditLimitMinor: { type: ['integer', 'null'], minimum: 0, maximum: CREDIT_MAX_MINOR },
  currency: { type: 'string', enum: CURRENCIES },
  taxRateBp: { type: 'integer', minimum: 0, maximum: 9999 },
} as const;
const SETTLEMENT_RESPONSE = {
  type: 'object',
  properties: {
    ...Object.fromEntries(Object.entries(SETTLEMENT_FIELDS).map(([k, v]) => [k, { type: v.type }])),
    status: { type: 'string' },
    editable: { type: 'boolean' },
    creditFor: { type: ['string', 'null'] },
    creditForBillId: { type: ['string', 'null'] },
    depositPaidMinor: { type: 'integer' },
    depositRequestedMinor: { type: 'integer' },
    depositAppliedMinor: { type: 'integer' },
    depositLeftMinor: { type: 'integer' },
    creditLeftMinor: { type: ['integer', 'null'] },
  },
};

/**
 * The invoice's settlement details, whether they may be edited, the organisation's deposit in the invoice's currency
 * (paid, requested, left), what this invoice drew on it, and what is left to credit on it (the credit dialog's most).
 */
async function settlementAnswer(req: FastifyRequest, orgId: string, id: string) {
  const s = await invoiceSettlement(req.server.db, orgId, id);
  if (!s) throw notFound('invoice', id);
  const d = await depositOf(req.server.db, orgId, s.currency);
  return {
    ...s,
    editable: s.status === 'draft' && s.isCurrent,
    depositPaidMinor: d.paidMinor,
    depositRequestedMinor: d.requestedMinor,
    depositAppliedMinor: await depositAppliedMinor(req.server.db, orgId, id),
    depositLeftMinor: d.leftMinor,
    creditLeftMinor: await creditLeftMinor(req.server.db, orgId, id),
  };
}

export const billTypeRoutes = defineRoutes([
  invoiceRoute(
    'POST',
    'credit',
    'credit',
    {
      schema: {
        body: { type: 'object', required: ['amountMinor', 'reason'], additionalProperties: false, properties: { amountMinor: MINOR, reason: REASON } },
        response: INVOICE_RESPONSE,
      },
      summary:
        'Issue a credit note against a published or paid invoice: amount (tax included, minor units) at most what it invoiced less earlier credit notes.',
    },
    async (req, auth, id) => {
      const body = req.body as { amountMinor: number; reason: string };
      return req.server.db.tx(async (q) => invoiceRecord(q, auth.orgId, await creditBill(q, { orgId: auth.orgId, of: id, ...body, now: nowOf(req) })));
    },
  ),
  invoiceRoute(
    'GET',
    'settlement',
    'read',
    {
      schema: { response: SETTLEMENT_RESPONSE },
      summary: "The invoice's settlement party, bank, credit limit, currency and tax rate, and the organisation's deposit.",
    },
    (req, auth, id) => settlementAnswer(req, auth.orgId, id),
  ),
  invoiceRoute(
    'PUT',
    'settlement',
    'settlement',
    {
      schema: {
        body: { type: 'object', required: Object.keys(SETTLEMENT_FIELDS), additionalProperties: false, properties: SETTLEMENT_FIELDS },
        response: SETTLEMENT_RESPONSE,
      },
      summary: "Edit a draft's settlement details; the organisation's billing profile takes them for the invoices to come.",
    },
    async (req, auth, id) => {
      const body = req.body as Settlement;
      if (body.iban !== null && !ibanOk(body.iban)) throw invalid('iban', 'iban');
      const now = nowOf(req);
      const trim = (v: string | null) => (v === null ? null : v.trim());
      await req.server.db.tx(async (q) => {
        const s = await invoiceSettlement(q, auth.orgId, id, true);
        if (!s) throw notFound('invoice', id);
        if (s.status !== 'draft' || !s.isCurrent) throw notEditable(s.status);
        await saveSettlement(q, auth.orgId, id, { ...body, settlementCustomer: trim(body.settlementCustomer), bankName: trim(body.bankName) }, now);
        await appendEvents(q, [
          {
            orgId: auth.orgId,
            type: 'invoice',
            subtype: 'settlement_updated',
            subject: id,
            at: now,
            data: { currency: body.currency, taxRateBp: body.taxRateBp, creditLimitMinor: body.creditLimitMinor },
          },
        ]);
      });
      return settlementAnswer(req, auth.orgId, id);
    },
  ),
  {
    service: 'customer',
    method: 'POST',
    path: `${BASE}/predeposit`,
    permission: { action: 'deposit', subject: 'customer-bill-cube' },
    summary: "Request a deposit (minor units, no tax) as an invoice of type predeposit, issued at once; once paid it counts into the organisation's deposit.",
    schema: {
      body: {
        type: 'object',
        required: ['amountMinor'],
        additionalProperties: false,
        properties: { amountMinor: { ...MINOR, maximum: DEPOSIT_MAX_MINOR }, reason: REASON },
      },
      response: INVOICE_RESPONSE,
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as { amountMinor: number; reason?: string };
      return req.server.db.tx(async (q) =>
        invoiceRecord(
          q,
          auth.orgId,
          await requestDeposit(q, { orgId: auth.orgId, amountMinor: body.amountMinor, reason: body.reason?.trim() ?? null, now: nowOf(req) }),
        ),
      );
    },
  },
] satisfies RouteDef[]);

/**
 * Invoices on the customer API (SPEC.md section 7, Billing): the list, one invoice's details, its SIM lines and its
 * PDF. Columns and rules come from schemas/invoices.json and invoice-lines.json; the SQL is in bill-repo.ts.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { dueDateOf } from '../../common/billing.js';
import { CODES } from '../../common/errors.js';
import type { Action } from '../../common/permissions.js';
import { RESOURCES } from '../../common/resource-registry.js';
import type { Queryable } from '../db/db.js';
import { listRoute, recordOf, showRoute } from '../db/resource-list.js';
import { appendEvents } from '../events/event-log.js';
import type { AuthContext } from '../http/context.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { defineRoutes, pathParams, type RouteDef, type RouteSchemas } from '../http/route.js';
import {
  addSettle,
  csvLines,
  currentVersion,
  extractOf,
  hasSettles,
  invoiceForPdf,
  invoiceName,
  lockedInvoice,
  markPaid,
  pdfLines,
  poolDetailsOf,
  publishInvoice,
  settlesOf,
  versionsOf,
  type InvoiceState,
} from './bill-repo.js';
import { correctInvoice } from './invoice-job.js';
import { invoicePdf } from './invoice-pdf.js';

const invoices = RESOURCES.invoices;

const BASE = '/cube/v2/api/customer/bills';
const nowOf = (req: FastifyRequest) => req.server.config.clock?.() ?? new Date();

/** The invoice of this organisation, locked for a transition in q's transaction; 404 for any other. */
async function lockInvoice(q: Queryable, orgId: string, id: string): Promise<InvoiceState> {
  const row = await lockedInvoice(q, orgId, id);
  if (!row) throw notFound('invoice', id);
  return row;
}

/** 409 saying what the invoice's state does not allow (common/locales errors.invoiceNot…). */
const STATE_ERRORS = { publish: 'errors.invoiceNotDraft', preview: 'errors.invoiceNotDraft', settle: 'errors.invoiceNotPublished', correct: 'errors.invoiceNotCorrectable' };
const wrongState = (status: string, action: keyof typeof STATE_ERRORS) => new ApiError(409, CODES.conflict, { status, action }, STATE_ERRORS[action]);

const invoiceRecord = (q: Queryable, orgId: string, id: string) => recordOf(q, RESOURCES.invoices, orgId, id);
/** 404 unless the invoice is this organisation's. */
async function mustExist(q: Queryable, orgId: string, id: string): Promise<void> {
  if (!(await invoiceRecord(q, orgId, id))) throw notFound('invoice', id);
}
const INVOICE_RESPONSE = { type: 'object', properties: RESOURCES.invoices.properties };

/** A response object of these fields, each of this JSON type. */
const objectOf = (fields: Record<string, string | string[]>) => ({ type: 'object', properties: Object.fromEntries(Object.entries(fields).map(([k, type]) => [k, { type }])) });
const listOf = (item: object) => ({ type: 'object', properties: { items: { type: 'array', items: item } } });

/**
 * A route on one invoice (`${BASE}/:id/<sub>`) of the customer service under the bill permission: its handler gets the
 * caller and the invoice id.
 */
function invoiceRoute(
  method: RouteDef['method'],
  sub: string,
  action: Action,
  def: { schema: Omit<RouteSchemas, 'params'> } & Pick<RouteDef, 'raw' | 'summary'>,
  handler: (req: FastifyRequest, auth: AuthContext, id: string, reply: FastifyReply) => Promise<unknown>,
): RouteDef {
  return {
    service: 'customer',
    method,
    path: `${BASE}/:id/${sub}`,
    permission: { action, subject: 'customer-bill-cube' },
    ...def,
    schema: { params: pathParams('id'), ...def.schema },
    handler: async (req, reply) => {
      const auth = req.requireAuth();
      return handler(req, auth, (req.params as { id: string }).id, reply);
    },
  };
}

/** The invoice as a PDF made on request from the same rows the pages show; a preview only of a draft. */
const pdfRoute = (sub: string, preview: boolean) =>
  invoiceRoute('GET', sub, 'read', { schema: { response: {} }, raw: true }, async (req, auth, id, reply) => {
    const { db } = req.server;
    const inv = await invoiceForPdf(db, auth.orgId, id);
    if (!inv) throw notFound('invoice', id);
    if (preview && inv.status !== 'draft') throw wrongState(inv.status, 'preview');
    inv.lines = await pdfLines(db, auth.orgId, id);
    const pdf = await invoicePdf(inv, req.lang);
    const name = `${inv.billId}${inv.version > 1 ? `-v${inv.version}` : ''}${preview ? '-preview' : ''}`.replace(/[^\w.-]/g, '_');
    return reply.type('application/pdf').header('content-disposition', `attachment; filename="${name}.pdf"`).header('cache-control', 'no-store').send(Buffer.from(pdf));
  });

const SETTLE = objectOf({ id: 'integer', amount: 'number', currency: 'string', paidOn: 'string', reference: 'string', recordedBy: ['string', 'null'], recordedAt: 'string' });
const SETTLES = { type: 'object', properties: { items: { type: 'array', items: SETTLE }, paid: { type: 'number' }, outstanding: { type: 'number' } } };
const VERSION = objectOf({
  id: 'string',
  billId: 'string',
  version: 'integer',
  status: 'string',
  isCurrent: 'boolean',
  amountInclTax: 'number',
  currency: 'string',
  billingDate: 'string',
  correctionReason: ['string', 'null'],
  createdAt: 'string',
});
const EXTRACT_LINE = objectOf({ sku: 'string', sims: 'integer', bundleQuantity: 'integer', bundleAmount: 'number', usageKb: 'number', overageKb: 'number', overageAmount: 'number', amount: 'number' });
const POOL_DETAIL = objectOf({
  poolId: 'string',
  name: 'string',
  sku: ['string', 'null'],
  sims: ['integer', 'null'],
  usageKb: ['number', 'null'],
  sizeKb: ['number', 'null'],
  overageKb: ['number', 'null'],
  overageAmount: ['number', 'null'],
});

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  // A cell a spreadsheet would run as a formula is quoted as text.
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

const LIFECYCLE_ROUTES: RouteDef[] = [
  invoiceRoute(
    'POST',
    'publish',
    'publish',
    { schema: { response: INVOICE_RESPONSE }, summary: 'Publish (issue) a draft invoice: it is due 10 days later or at month end, whichever is earlier.' },
    async (req, auth, id) => {
      const now = nowOf(req);
      return req.server.db.tx(async (q) => {
        const inv = await lockInvoice(q, auth.orgId, id);
        if (inv.status !== 'draft') throw wrongState(inv.status, 'publish');
        const due = dueDateOf(now);
        await publishInvoice(q, auth.orgId, id, now, now.toISOString().slice(0, 10), due);
        await appendEvents(q, [{ orgId: auth.orgId, type: 'invoice', subtype: 'published', subject: id, at: now, data: { billId: inv.billId, version: inv.version, dueDate: due, amountInclTax: inv.total, currency: inv.currency } }]);
        return invoiceRecord(q, auth.orgId, id);
      });
    },
  ),
  invoiceRoute('GET', 'settles', 'read', { schema: { response: SETTLES } }, async (req, auth, id) => {
    await mustExist(req.server.db, auth.orgId, id);
    return settlesOf(req.server.db, auth.orgId, id);
  }),
  invoiceRoute(
    'POST',
    'settles',
    'settle',
    {
      schema: {
        body: {
          type: 'object',
          required: ['amount', 'paidOn', 'reference'],
          additionalProperties: false,
          properties: {
            amount: { type: 'number', minimum: 0.01, maximum: 999_999_999_999, multipleOf: 0.01 },
            paidOn: { type: 'string', format: 'date', minLength: 10, maxLength: 10 },
            reference: { type: 'string', minLength: 1, maxLength: 64, pattern: '\\S' },
          },
        },
        response: { type: 'object', properties: { ...SETTLES.properties, invoice: INVOICE_RESPONSE } },
      },
      summary: 'Record a payment of a published invoice; it is paid when its payments reach its total.',
    },
    async (req, auth, id) => {
      const body = req.body as { amount: number; paidOn: string; reference: string };
      const now = nowOf(req);
      if (body.paidOn > now.toISOString().slice(0, 10)) throw invalid('paidOn', 'maximum', { limit: now.toISOString().slice(0, 10) });
      return req.server.db.tx(async (q) => {
        const inv = await lockInvoice(q, auth.orgId, id);
        if (inv.status !== 'published') throw wrongState(inv.status, 'settle');
        // Cents as integers: the payment may not exceed what is still due.
        const cents = Math.round(body.amount * 100);
        if (Math.abs(body.amount * 100 - cents) > 1e-6) throw invalid('amount', 'cents');
        const dueCents = Math.round(Number(inv.total) * 100) - Math.round((await settlesOf(q, auth.orgId, id)).paid * 100);
        if (cents > dueCents) throw invalid('amount', 'max', { max: (dueCents / 100).toFixed(2) });
        await addSettle(q, { orgId: auth.orgId, invoiceId: id, cents, currency: inv.currency, paidOn: body.paidOn, reference: body.reference.trim(), recordedBy: auth.accountId, at: now });
        const events = [{ orgId: auth.orgId, type: 'invoice' as const, subtype: 'settled', subject: id, at: now, data: { billId: inv.billId, version: inv.version, amount: (cents / 100).toFixed(2), currency: inv.currency, paidOn: body.paidOn } }];
        if (cents === dueCents) {
          await markPaid(q, auth.orgId, id, now);
          events.push({ orgId: auth.orgId, type: 'invoice', subtype: 'paid', subject: id, at: now, data: { billId: inv.billId, version: inv.version, amount: inv.total, currency: inv.currency, paidOn: body.paidOn } });
        }
        await appendEvents(q, events);
        return { ...(await settlesOf(q, auth.orgId, id)), invoice: await invoiceRecord(q, auth.orgId, id) };
      });
    },
  ),
  invoiceRoute('GET', 'version', 'read', { schema: { response: VERSION }, summary: 'The current version of the invoice\'s bill.' }, async (req, auth, id) => {
    const row = await currentVersion(req.server.db, auth.orgId, id);
    if (!row) throw notFound('invoice', id);
    return row;
  }),
  invoiceRoute('GET', 'versions', 'read', { schema: { response: listOf(VERSION) }, summary: 'Every version of the invoice\'s bill, newest first; the current one marked.' }, async (req, auth, id) => {
    const items = await versionsOf(req.server.db, auth.orgId, id);
    if (!items.length) throw notFound('invoice', id);
    return { items };
  }),
  invoiceRoute(
    'POST',
    'versions',
    'correct',
    {
      schema: {
        body: { type: 'object', additionalProperties: false, properties: { reason: { type: 'string', minLength: 1, maxLength: 200 } } },
        response: INVOICE_RESPONSE,
      },
      summary: 'Correct a post-payment invoice: a new version made again from the month\'s bundles and usage, as a draft; the old one obsolete.',
    },
    async (req, auth, id) => {
      const reason = (req.body as { reason?: string } | undefined)?.reason?.trim() || null;
      const now = nowOf(req);
      return req.server.db.tx(async (q) => {
        const inv = await lockInvoice(q, auth.orgId, id);
        if (!inv.isCurrent || (inv.status !== 'draft' && inv.status !== 'published') || inv.type !== 'post_payment') throw wrongState(inv.status, 'correct');
        if (await hasSettles(q, auth.orgId, id)) throw wrongState(inv.status, 'correct');
        const made = await correctInvoice(q, auth.orgId, inv, reason, now);
        return invoiceRecord(q, auth.orgId, made.id);
      });
    },
  ),
  invoiceRoute('GET', 'extract', 'read', { schema: { response: listOf(EXTRACT_LINE) }, summary: 'The invoice\'s lines summed by SKU.' }, async (req, auth, id) => {
    await mustExist(req.server.db, auth.orgId, id);
    return { items: await extractOf(req.server.db, auth.orgId, id) };
  }),
  invoiceRoute(
    'GET',
    'shared_pool/details',
    'read',
    { schema: { response: listOf(POOL_DETAIL) }, summary: 'The pools of the invoice\'s SIMs: their SIMs, usage, size, usage beyond it in the month and what that overage was charged.' },
    async (req, auth, id) => {
      const items = await poolDetailsOf(req.server.db, auth.orgId, id);
      if (!items) throw notFound('invoice', id);
      return { items };
    },
  ),
  invoiceRoute('GET', 'details/download', 'export', { schema: { response: {} }, raw: true, summary: 'The invoice\'s SIM lines as CSV.' }, async (req, auth, id, reply) => {
    const inv = await invoiceName(req.server.db, auth.orgId, id);
    if (!inv) throw notFound('invoice', id);
    const rows = await csvLines(req.server.db, auth.orgId, id);
    const head = ['iccid', 'sku', 'bundleQuantity', 'bundlePrice', 'usageKb', 'overageKb', 'overageAmount', 'amount'];
    const csv = [head.join(','), ...rows.map((r) => Object.values(r).map(csvCell).join(','))].join('\r\n') + '\r\n';
    const name = `${inv.bill_id}${inv.version > 1 ? `-v${inv.version}` : ''}-details`.replace(/[^\w.-]/g, '_');
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}.csv"`).header('cache-control', 'no-store').send(`\uFEFF${csv}`);
  }),
];

export const billRoutes = defineRoutes([
  listRoute(invoices, 'customer', BASE),
  // SIM invoice lines: one invoice's (invoiceId) or every invoice's of a SIM (search by ICCID).
  listRoute(RESOURCES.invoiceLines, 'customer', '/cube/v2/api/customer/sim/bills'),
  showRoute(invoices),
  pdfRoute('download/pdf', false),
  // A draft's preview: the same PDF, only while the invoice is a draft (it says so under its status).
  pdfRoute('preview/pdf', true),
  ...LIFECYCLE_ROUTES,
]);

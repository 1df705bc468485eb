/**
 * Invoices on the customer API (SPEC.md section 7, Billing): the list, one invoice's details, its SIM lines and its
 * PDF. Columns and rules come from schemas/invoices.json and invoice-lines.json.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { dueDateOf } from '../../common/billing.js';
import { CODES } from '../../common/errors.js';
import { RESOURCES } from '../../common/resource-registry.js';
import type { Queryable } from '../db/db.js';
import { listRoute, recordOf, selectOf, showRoute } from '../db/resource-list.js';
import { appendEvents } from '../events/event-log.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { defineRoutes, pathParams, type RouteDef } from '../http/route.js';
import { correctInvoice } from './invoice-job.js';
import { invoicePdf, type InvoiceForPdf } from './invoice-pdf.js';

const invoices = RESOURCES.invoices;
const SELECT = selectOf(invoices);


const BASE = '/cube/v2/api/customer/bills';
const nowOf = (req: FastifyRequest) => req.server.config.clock?.() ?? new Date();

interface InvoiceState {
  id: string;
  billId: string;
  status: 'draft' | 'published' | 'obsolete' | 'paid';
  type: string;
  version: number;
  billingCycle: string;
  currency: string;
  total: string;
  isCurrent: boolean;
}

/** The invoice of this organisation, locked for a transition in q's transaction; 404 for any other. */
async function lockInvoice(q: Queryable, orgId: string, id: string): Promise<InvoiceState> {
  const row = (
    await q.query<InvoiceState>(
      `SELECT id, bill_id AS "billId", status, type, version, billing_cycle AS "billingCycle", currency, amount_incl_tax::text AS total, is_current AS "isCurrent"
         FROM invoices WHERE org_id = $1 AND id = $2 FOR UPDATE`,
      [orgId, id],
    )
  ).rows[0];
  if (!row) throw notFound('invoice', id);
  return row;
}

/** 409 saying what the invoice's state does not allow (common/locales errors.invoiceNot…). */
const STATE_ERRORS = { publish: 'errors.invoiceNotDraft', preview: 'errors.invoiceNotDraft', settle: 'errors.invoiceNotPublished', correct: 'errors.invoiceNotCorrectable' };
const wrongState = (status: string, action: keyof typeof STATE_ERRORS) => new ApiError(409, CODES.conflict, { status, action }, STATE_ERRORS[action]);

const invoiceRecord = (q: Queryable, orgId: string, id: string) => recordOf(q, RESOURCES.invoices, orgId, id);
const INVOICE_RESPONSE = { type: 'object', properties: RESOURCES.invoices.properties };

/** The invoice as a PDF; a preview only of a draft. */
function pdfRoute(path: string, preview: boolean): RouteDef {
  return {
    service: 'customer',
    method: 'GET',
    path,
    permission: { action: 'read', subject: 'customer-bill-cube' },
    schema: { params: pathParams('id'), response: {} },
    raw: true,
    // The invoice as a PDF made on request from the same rows the pages show.
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      const auth = req.requireAuth();
      const { db } = req.server;
      const { id } = req.params as { id: string };
      const inv = (
        await db.query<Omit<InvoiceForPdf, 'lines' | 'orgName'>>(
          `${SELECT.replace(' FROM invoices t', ', t.bank_details AS "bankDetails", o.name AS "orgName" FROM invoices t JOIN organisations o ON o.id = t.org_id')} WHERE t.org_id = $1 AND t.id = $2`,
          [auth.orgId, id],
        )
      ).rows[0] as InvoiceForPdf | undefined;
      if (!inv) throw notFound('invoice', id);
      if (preview && inv.status !== 'draft') throw wrongState(inv.status, 'preview');
      inv.lines = (
        await db.query<InvoiceForPdf['lines'][number]>(
          'SELECT iccid, sku, usage_kb::float8 AS "usageKb", amount::float8 AS amount FROM invoice_lines WHERE org_id = $1 AND invoice_id = $2 ORDER BY iccid',
          [auth.orgId, id],
        )
      ).rows;
      const pdf = await invoicePdf(inv, req.lang);
      const name = `${inv.billId}${inv.version > 1 ? `-v${inv.version}` : ''}${preview ? '-preview' : ''}`.replace(/[^\w.-]/g, '_');
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="${name}.pdf"`).header('cache-control', 'no-store').send(Buffer.from(pdf));
    },
  };
}

const SETTLE = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    amount: { type: 'number' },
    currency: { type: 'string' },
    paidOn: { type: 'string' },
    reference: { type: 'string' },
    recordedBy: { type: ['string', 'null'] },
    recordedAt: { type: 'string' },
  },
};
const VERSION = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    billId: { type: 'string' },
    version: { type: 'integer' },
    status: { type: 'string' },
    isCurrent: { type: 'boolean' },
    amountInclTax: { type: 'number' },
    currency: { type: 'string' },
    billingDate: { type: 'string' },
    correctionReason: { type: ['string', 'null'] },
    createdAt: { type: 'string' },
  },
};
const VERSIONS_SQL = `SELECT v.id, v.bill_id AS "billId", v.version, v.status, v.is_current AS "isCurrent", v.amount_incl_tax::float8 AS "amountInclTax", v.currency,
                             v.billing_date::text AS "billingDate", v.correction_reason AS "correctionReason", v.created_at AS "createdAt"
                        FROM invoices v JOIN invoices i ON i.org_id = v.org_id AND i.bill_id = v.bill_id
                       WHERE i.org_id = $1 AND i.id = $2`;

async function settlesOf(q: Queryable, orgId: string, id: string) {
  const items = (
    await q.query<{ amount: number }>(
      `SELECT s.id::int AS id, s.amount::float8 AS amount, s.currency, s.paid_on::text AS "paidOn", s.reference, a.email AS "recordedBy", s.recorded_at AS "recordedAt"
         FROM invoice_settles s LEFT JOIN accounts a ON a.id = s.recorded_by WHERE s.org_id = $1 AND s.invoice_id = $2 ORDER BY s.recorded_at, s.id`,
      [orgId, id],
    )
  ).rows;
  const sums = (
    await q.query<{ paid: number; due: number }>(
      `SELECT coalesce((SELECT sum(amount) FROM invoice_settles WHERE org_id = $1 AND invoice_id = $2), 0)::float8 AS paid,
              (i.amount_incl_tax - coalesce((SELECT sum(amount) FROM invoice_settles WHERE org_id = $1 AND invoice_id = $2), 0))::float8 AS due
         FROM invoices i WHERE i.org_id = $1 AND i.id = $2`,
      [orgId, id],
    )
  ).rows[0];
  return { items, paid: sums.paid, outstanding: Math.max(0, sums.due) };
}

/** Lines grouped by SKU: the invoice's extract. A pool line adds its overage to its SKU; its usage is its SIMs' (counted already). */
const EXTRACT_SQL = `SELECT coalesce(sku, '') AS sku, count(sim_id)::int AS sims, sum(bundle_quantity)::int AS "bundleQuantity", sum(amount - overage_amount)::float8 AS "bundleAmount",
                            coalesce(sum(usage_kb) FILTER (WHERE pool_id IS NULL), 0)::float8 AS "usageKb", sum(overage_kb)::float8 AS "overageKb", sum(overage_amount)::float8 AS "overageAmount", sum(amount)::float8 AS amount
                       FROM invoice_lines WHERE org_id = $1 AND invoice_id = $2 GROUP BY 1 ORDER BY 1`;

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  // A cell a spreadsheet would run as a formula is quoted as text.
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

const LIFECYCLE_ROUTES: RouteDef[] = [
  {
    service: 'customer',
    method: 'POST',
    path: `${BASE}/:id/publish`,
    permission: { action: 'publish', subject: 'customer-bill-cube' },
    schema: { params: pathParams('id'), response: INVOICE_RESPONSE },
    summary: 'Publish (issue) a draft invoice: it is due 10 days later or at month end, whichever is earlier.',
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const now = nowOf(req);
      return req.server.db.tx(async (q) => {
        const inv = await lockInvoice(q, auth.orgId, id);
        if (inv.status !== 'draft') throw wrongState(inv.status, 'publish');
        const day = now.toISOString().slice(0, 10);
        const due = dueDateOf(now);
        await q.query(`UPDATE invoices SET status = 'published', issued_at = $3, billing_date = $4, due_date = $5, updated_at = $3 WHERE org_id = $1 AND id = $2`, [auth.orgId, id, now.toISOString(), day, due]);
        await appendEvents(q, [{ orgId: auth.orgId, type: 'invoice', subtype: 'published', subject: id, at: now, data: { billId: inv.billId, version: inv.version, dueDate: due, amountInclTax: inv.total, currency: inv.currency } }]);
        return invoiceRecord(q, auth.orgId, id);
      });
    },
  },
  {
    service: 'customer',
    method: 'GET',
    path: `${BASE}/:id/settles`,
    permission: { action: 'read', subject: 'customer-bill-cube' },
    schema: { params: pathParams('id'), response: { type: 'object', properties: { items: { type: 'array', items: SETTLE }, paid: { type: 'number' }, outstanding: { type: 'number' } } } },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      if (!(await invoiceRecord(req.server.db, auth.orgId, id))) throw notFound('invoice', id);
      return settlesOf(req.server.db, auth.orgId, id);
    },
  },
  {
    service: 'customer',
    method: 'POST',
    path: `${BASE}/:id/settles`,
    permission: { action: 'settle', subject: 'customer-bill-cube' },
    schema: {
      params: pathParams('id'),
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
      response: { type: 'object', properties: { items: { type: 'array', items: SETTLE }, paid: { type: 'number' }, outstanding: { type: 'number' }, invoice: INVOICE_RESPONSE } },
    },
    summary: 'Record a payment of a published invoice; it is paid when its payments reach its total.',
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
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
        await q.query(
          `INSERT INTO invoice_settles (org_id, invoice_id, amount, currency, paid_on, reference, recorded_by, recorded_at) VALUES ($1, $2, $3::numeric / 100, $4, $5, $6, $7, $8)`,
          [auth.orgId, id, cents, inv.currency, body.paidOn, body.reference.trim(), auth.accountId, now.toISOString()],
        );
        const events = [{ orgId: auth.orgId, type: 'invoice' as const, subtype: 'settled', subject: id, at: now, data: { billId: inv.billId, version: inv.version, amount: (cents / 100).toFixed(2), currency: inv.currency, paidOn: body.paidOn } }];
        if (cents === dueCents) {
          await q.query(`UPDATE invoices SET status = 'paid', paid_at = $3, updated_at = $3 WHERE org_id = $1 AND id = $2`, [auth.orgId, id, now.toISOString()]);
          events.push({ orgId: auth.orgId, type: 'invoice', subtype: 'paid', subject: id, at: now, data: { billId: inv.billId, version: inv.version, amount: inv.total, currency: inv.currency, paidOn: body.paidOn } });
        }
        await appendEvents(q, events);
        return { ...(await settlesOf(q, auth.orgId, id)), invoice: await invoiceRecord(q, auth.orgId, id) };
      });
    },
  },
  {
    service: 'customer',
    method: 'GET',
    path: `${BASE}/:id/version`,
    permission: { action: 'read', subject: 'customer-bill-cube' },
    schema: { params: pathParams('id'), response: VERSION },
    summary: 'The current version of the invoice\'s bill.',
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const row = (await req.server.db.query(`${VERSIONS_SQL} AND v.is_current`, [auth.orgId, id])).rows[0];
      if (!row) throw notFound('invoice', id);
      return row;
    },
  },
  {
    service: 'customer',
    method: 'GET',
    path: `${BASE}/:id/versions`,
    permission: { action: 'read', subject: 'customer-bill-cube' },
    schema: { params: pathParams('id'), response: { type: 'object', properties: { items: { type: 'array', items: VERSION } } } },
    summary: 'Every version of the invoice\'s bill, newest first; the current one marked.',
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const items = (await req.server.db.query(`${VERSIONS_SQL} ORDER BY v.version DESC`, [auth.orgId, id])).rows;
      if (!items.length) throw notFound('invoice', id);
      return { items };
    },
  },
  {
    service: 'customer',
    method: 'POST',
    path: `${BASE}/:id/versions`,
    permission: { action: 'correct', subject: 'customer-bill-cube' },
    schema: {
      params: pathParams('id'),
      body: { type: 'object', additionalProperties: false, properties: { reason: { type: 'string', minLength: 1, maxLength: 200 } } },
      response: INVOICE_RESPONSE,
    },
    summary: 'Correct a post-payment invoice: a new version made again from the month\'s bundles and usage, as a draft; the old one obsolete.',
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const reason = (req.body as { reason?: string } | undefined)?.reason?.trim() || null;
      const now = nowOf(req);
      return req.server.db.tx(async (q) => {
        const inv = await lockInvoice(q, auth.orgId, id);
        if (!inv.isCurrent || (inv.status !== 'draft' && inv.status !== 'published') || inv.type !== 'post_payment') throw wrongState(inv.status, 'correct');
        if ((await q.query('SELECT 1 FROM invoice_settles WHERE org_id = $1 AND invoice_id = $2 LIMIT 1', [auth.orgId, id])).rows.length) throw wrongState(inv.status, 'correct');
        const made = await correctInvoice(q, auth.orgId, inv, reason, now);
        return invoiceRecord(q, auth.orgId, made.id);
      });
    },
  },
  {
    service: 'customer',
    method: 'GET',
    path: `${BASE}/:id/extract`,
    permission: { action: 'read', subject: 'customer-bill-cube' },
    schema: {
      params: pathParams('id'),
      response: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: { sku: { type: 'string' }, sims: { type: 'integer' }, bundleQuantity: { type: 'integer' }, bundleAmount: { type: 'number' }, usageKb: { type: 'number' }, overageKb: { type: 'number' }, overageAmount: { type: 'number' }, amount: { type: 'number' } },
            },
          },
        },
      },
    },
    summary: 'The invoice\'s lines summed by SKU.',
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      if (!(await invoiceRecord(req.server.db, auth.orgId, id))) throw notFound('invoice', id);
      return { items: (await req.server.db.query(EXTRACT_SQL, [auth.orgId, id])).rows };
    },
  },
  {
    service: 'customer',
    method: 'GET',
    path: `${BASE}/:id/shared_pool/details`,
    permission: { action: 'read', subject: 'customer-bill-cube' },
    schema: {
      params: pathParams('id'),
      response: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: { poolId: { type: 'string' }, name: { type: 'string' }, sku: { type: ['string', 'null'] }, sims: { type: ['integer', 'null'] }, usageKb: { type: ['number', 'null'] }, sizeKb: { type: ['number', 'null'] }, overageKb: { type: ['number', 'null'] }, overageAmount: { type: ['number', 'null'] } },
            },
          },
        },
      },
    },
    summary: 'The pools of the invoice\'s SIMs: their SIMs, usage, size, usage beyond it in the month and what that overage was charged.',
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const row = (
        await req.server.db.query<{ items: unknown[] }>(
          `SELECT CASE jsonb_typeof(pool_info) WHEN 'array' THEN pool_info WHEN 'object' THEN jsonb_build_array(pool_info) ELSE '[]'::jsonb END AS items FROM invoices WHERE org_id = $1 AND id = $2`,
          [auth.orgId, id],
        )
      ).rows[0];
      if (!row) throw notFound('invoice', id);
      return { items: row.items };
    },
  },
  {
    service: 'customer',
    method: 'GET',
    path: `${BASE}/:id/details/download`,
    permission: { action: 'export', subject: 'customer-bill-cube' },
    schema: { params: pathParams('id'), response: {} },
    raw: true,
    summary: 'The invoice\'s SIM lines as CSV.',
    handler: async (req, reply) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const inv = (await req.server.db.query<{ bill_id: string; version: number }>('SELECT bill_id, version FROM invoices WHERE org_id = $1 AND id = $2', [auth.orgId, id])).rows[0];
      if (!inv) throw notFound('invoice', id);
      const rows = (
        await req.server.db.query<Record<string, unknown>>(
          `SELECT iccid, sku, bundle_quantity, bundle_price::text, usage_kb, overage_kb, overage_amount::text, amount::text FROM invoice_lines WHERE org_id = $1 AND invoice_id = $2 ORDER BY iccid, id`,
          [auth.orgId, id],
        )
      ).rows;
      const head = ['iccid', 'sku', 'bundleQuantity', 'bundlePrice', 'usageKb', 'overageKb', 'overageAmount', 'amount'];
      const csv = [head.join(','), ...rows.map((r) => Object.values(r).map(csvCell).join(','))].join('\r\n') + '\r\n';
      const name = `${inv.bill_id}${inv.version > 1 ? `-v${inv.version}` : ''}-details`.replace(/[^\w.-]/g, '_');
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}.csv"`).header('cache-control', 'no-store').send(`\uFEFF${csv}`);
    },
  },
];

export const billRoutes = defineRoutes([
  listRoute(invoices, 'customer', '/cube/v2/api/customer/bills'),
  // SIM invoice lines: one invoice's (invoiceId) or every invoice's of a SIM (search by ICCID).
  listRoute(RESOURCES.invoiceLines, 'customer', '/cube/v2/api/customer/sim/bills'),
  showRoute(invoices),
  pdfRoute('/cube/v2/api/customer/bills/:id/download/pdf', false),
  // A draft's preview: the same PDF, only while the invoice is a draft (it says so under its status).
  pdfRoute('/cube/v2/api/customer/bills/:id/preview/pdf', true),
  ...LIFECYCLE_ROUTES,
]);

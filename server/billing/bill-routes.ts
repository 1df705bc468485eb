/**
 * Invoices on the customer API (SPEC.md section 7, Billing): the list, one invoice's details, its SIM lines and its
 * PDF. Columns and rules come from schemas/invoices.json and invoice-lines.json; the SQL is in bill-repo.ts.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Action } from '../../common/permissions.js';
import { RESOURCES } from '../../common/resource-registry.js';
import type { Queryable } from '../db/db.js';
import { listRoute, showRoute } from '../schema/resource-routes.js';
import { recordOf } from '../schema/schema-repo.js';
import type { AuthContext } from '../http/context.js';
import { notFound } from '../http/api-error.js';
import { nowOf } from '../http/clock.js';
import { defineRoutes, pathParams, type RouteDef, type RouteSchemas } from '../http/route.js';
import { currentVersion, extractOf, invoiceForPdf, pdfHistory, pdfLines, poolDetailsOf, settlesOf, SIM_LINES, versionsOf } from './bill-repo.js';
import { correctBill, publishBill, settleBill, wrongState } from './invoice-lifecycle.js';
import { invoicePdf } from './invoice-pdf.js';

const invoices = RESOURCES.invoices;

export const BASE = '/cube/v2/api/customer/bills';

export const invoiceRecord = (q: Queryable, orgId: string, id: string) => recordOf(q, RESOURCES.invoices, orgId, id);
/** 404 unless the invoice is this organisation's. */
async function mustExist(q: Queryable, orgId: string, id: string): Promise<void> {
  if (!(await invoiceRecord(q, orgId, id))) throw notFound('invoice', id);
}
export const INVOICE_RESPONSE = { type: 'object', properties: RESOURCES.invoices.properties };

/** A response object of these fields, each of this JSON type. */
const objectOf = (fields: Record<string, string | string[]>) => ({
  type: 'object',
  properties: Object.fromEntries(Object.entries(fields).map(([k, type]) => [k, { type }])),
});
const listOf = (item: object) => ({ type: 'object', properties: { items: { type: 'array', items: item } } });

/**
 * A route on one invoice (`${BASE}/:id/<sub>`) of the customer service under the bill permission: its handler gets the
 * caller and the invoice id.
 */
export function invoiceRoute(
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
    Object.assign(inv, await pdfLines(db, auth.orgId, id));
    Object.assign(inv, await pdfHistory(db, auth.orgId, id));
    const pdf = await invoicePdf(inv, req.lang);
    const name = `${inv.billId}${inv.version > 1 ? `-v${inv.version}` : ''}${preview ? '-preview' : ''}`.replace(/[^\w.-]/g, '_');
    return reply
      .type('application/pdf')
      .header('content-disposition', `attachment; filename="${name}.pdf"`)
      .header('cache-control', 'no-store')
      .send(Buffer.from(pdf));
  });

const SETTLE = objectOf({
  id: 'integer',
  amount: 'number',
  currency: 'string',
  paidOn: 'string',
  reference: 'string',
  kind: 'string',
  recordedBy: ['string', 'null'],
  recordedAt: 'string',
});
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
const EXTRACT_LINE = objectOf({
  sku: 'string',
  sims: 'integer',
  bundleQuantity: 'integer',
  bundleAmount: 'number',
  usageKb: 'number',
  overageKb: 'number',
  overageAmount: 'number',
  amount: 'number',
});
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

const LIFECYCLE_ROUTES: RouteDef[] = [
  invoiceRoute(
    'POST',
    'publish',
    'publish',
    { schema: { response: INVOICE_RESPONSE }, summary: 'Publish (issue) a draft invoice: it is due 10 days later or at month end, whichever is earlier.' },
    async (req, auth, id) => {
      const now = nowOf(req);
      return req.server.db.tx(async (q) => {
        await publishBill(q, auth.orgId, id, now);
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
            // No multipleOf 0.01: in floating point 19.99 is no multiple of it; the handler checks the cents.
            amount: { type: 'number', minimum: 0.01, maximum: 999_999_999_999 },
            paidOn: { type: 'string', format: 'date', minLength: 10, maxLength: 10 },
            reference: { type: 'string', minLength: 1, maxLength: 64, pattern: '\\S' },
          },
        },
        response: {
          type: 'object',
          properties: {
            ...SETTLES.properties,
            invoice: INVOICE_RESPONSE,
            // Added for the console (older clients ignore it): the invoices this payment, a deposit's, paid from it.
            depositDraws: { type: 'array', items: objectOf({ invoiceId: 'string', billId: 'string', amount: 'number', currency: 'string', paid: 'boolean' }) },
          },
        },
      },
      summary:
        'Record a payment of a published invoice; it is paid when its payments reach its total. A deposit so paid pays the invoices issued before it (depositDraws).',
    },
    async (req, auth, id) => {
      const body = req.body as { amount: number; paidOn: string; reference: string };
      return req.server.db.tx(async (q) => {
        const { depositDraws } = await settleBill(q, { orgId: auth.orgId, id, ...body, recordedBy: auth.accountId, now: nowOf(req) });
        return { ...(await settlesOf(q, auth.orgId, id)), invoice: await invoiceRecord(q, auth.orgId, id), depositDraws };
      });
    },
  ),
  invoiceRoute('GET', 'version', 'read', { schema: { response: VERSION }, summary: "The current version of the invoice's bill." }, async (req, auth, id) => {
    const row = await currentVersion(req.server.db, auth.orgId, id);
    if (!row) throw notFound('invoice', id);
    return row;
  }),
  invoiceRoute(
    'GET',
    'versions',
    'read',
    { schema: { response: listOf(VERSION) }, summary: "Every version of the invoice's bill, newest first; the current one marked." },
    async (req, auth, id) => {
      const items = await versionsOf(req.server.db, auth.orgId, id);
      if (!items.length) throw notFound('invoice', id);
      return { items };
    },
  ),
  invoiceRoute(
    'POST',
    'versions',
    'correct',
    {
      schema: {
        body: { type: 'object', additionalProperties: false, properties: { reason: { type: 'string', minLength: 1, maxLength: 200 } } },
        response: INVOICE_RESPONSE,
      },
      summary: "Correct a post-payment invoice: a new version made again from the month's bundles and usage, as a draft; the old one obsolete.",
    },
    async (req, auth, id) => {
      const reason = (req.body as { reason?: string } | undefined)?.reason?.trim() || null;
      const made = (await correctBill(req.server.db, auth.orgId, id, reason, nowOf(req)))!;
      return invoiceRecord(req.server.db, auth.orgId, made.id);
    },
  ),
  invoiceRoute(
    'GET',
    'extract',
    'read',
    { schema: { response: listOf(EXTRACT_LINE) }, summary: "The invoice's lines summed by SKU." },
    async (req, auth, id) => {
      await mustExist(req.server.db, auth.orgId, id);
      return { items: await extractOf(req.server.db, auth.orgId, id) };
    },
  ),
  invoiceRoute(
    'GET',
    'shared_pool/details',
    'read',
    {
      schema: { response: listOf(POOL_DETAIL) },
      summary: "The pools of the invoice's SIMs: their SIMs, usage, size, usage beyond it in the month and what that overage was charged.",
    },
    async (req, auth, id) => {
      const items = await poolDetailsOf(req.server.db, auth.orgId, id);
      if (!items) throw notFound('invoice', id);
      return { items };
    },
  ),
];

export const billRoutes = defineRoutes([
  listRoute(invoices, 'customer', BASE),
  // SIM invoice lines: one invoice's (invoiceId) or every invoice's of a SIM (search by ICCID). A pool's line (its
  // overage, no SIM) is not one: it is shown in the invoice's pool details (shared_pool/details).
  listRoute(RESOURCES.invoiceLines, 'customer', '/cube/v2/api/customer/sim/bills', { where: SIM_LINES }),
  showRoute(invoices),
  pdfRoute('download/pdf', false),
  // A draft's preview: the same PDF, only while the invoice is a draft (it says so under its status).
  pdfRoute('preview/pdf', true),
  ...LIFECYCLE_ROUTES,
]);

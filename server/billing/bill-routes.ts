/**
 * Invoices on the customer API (SPEC.md section 7, Billing): the list, one invoice's details, its SIM lines and its
 * PDF. Columns and rules come from schemas/invoices.json and invoice-lines.json.
 */
import { RESOURCES } from '../../common/resource-registry.js';
import { listRoute, selectOf, showRoute } from '../db/resource-list.js';
import { notFound } from '../http/api-error.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { invoicePdf, type InvoiceForPdf } from './invoice-pdf.js';

const invoices = RESOURCES.invoices;
const SELECT = selectOf(invoices);

export const billRoutes = defineRoutes([
  listRoute(invoices, 'customer', '/cube/v2/api/customer/bills'),
  // SIM invoice lines: one invoice's (invoiceId) or every invoice's of a SIM (search by ICCID).
  listRoute(RESOURCES.invoiceLines, 'customer', '/cube/v2/api/customer/sim/bills'),
  showRoute(invoices),
  {
    service: 'customer',
    method: 'GET',
    path: '/cube/v2/api/customer/bills/:id/download/pdf',
    permission: { action: 'read', subject: 'customer-bill-cube' },
    schema: { params: pathParams('id'), response: {} },
    raw: true,
    // The invoice as a PDF made on request from the same rows the pages show.
    handler: async (req, reply) => {
      const auth = req.requireAuth();
      const { db } = req.server;
      const inv = (
        await db.query<Omit<InvoiceForPdf, 'lines' | 'orgName'>>(
          `${SELECT.replace(' FROM invoices t', ', t.bank_details AS "bankDetails", o.name AS "orgName" FROM invoices t JOIN organisations o ON o.id = t.org_id')} WHERE t.org_id = $1 AND t.id = $2`,
          [auth.orgId, (req.params as { id: string }).id],
        )
      ).rows[0] as InvoiceForPdf | undefined;
      if (!inv) throw notFound('invoice', (req.params as { id: string }).id);
      inv.lines = (
        await db.query<InvoiceForPdf['lines'][number]>(
          'SELECT iccid, sku, usage_kb::float8 AS "usageKb", amount::float8 AS amount FROM invoice_lines WHERE org_id = $1 AND invoice_id = $2 ORDER BY iccid',
          [auth.orgId, (req.params as { id: string }).id],
        )
      ).rows;
      const pdf = await invoicePdf(inv, req.lang);
      return reply
        .type('application/pdf')
        .header('content-disposition', `attachment; filename="${inv.billId.replace(/[^\w.-]/g, '_')}.pdf"`)
        .header('cache-control', 'no-store')
        .send(Buffer.from(pdf));
    },
  },
]);

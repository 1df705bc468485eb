/**
 * Invoices on the customer API: list, details, SIM lines, a real PDF in every console language, the due-date rule,
 * other organisations' ids.
 */
import { PDFDocument } from 'pdf-lib';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dueDateOf } from '../../common/billing.js';
import type { Language } from '../../common/limits.js';
import { appSignedIn, call, DB_KINDS, DEMO, type Session, type TestApp } from '../helper.js';

const BILLS = '/api/customer/cube/v2/api/customer/bills';

/** The text a PDF reader extracts (pdf.js through unpdf), all pages. */
async function pdfText(pdf: Buffer): Promise<string> {
  return (await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true })).text;
}

/** What a published invoice prints in each language: its title, the console's word for its status, some labels. */
const PRINTED: Record<Language, { title: string; published: string; labels: string[]; notLabels: string[] }> = {
  'en-US': { title: 'Invoice', published: 'Published', labels: ['Billing cycle', 'Total including tax'], notLabels: ['Issued'] },
  'zh-CN': { title: '发票', published: '已发布', labels: ['账期', '含税总额', '开票对象'], notLabels: ['發票', '帳期', 'Invoice'] },
  'zh-TW': { title: '發票', published: '已發布', labels: ['帳期', '含稅總額', '開立對象'], notLabels: ['发票', '账期', 'Invoice'] },
  'es-ES': { title: 'Factura', published: 'Publicada', labels: ['Ciclo de facturación', 'Total con impuestos'], notLabels: ['Emitida'] },
};
/** A PDF embeds only the glyphs it prints, so even a Chinese invoice of several pages stays small. */
const PDF_MAX_BYTES = 250 * 1024;

describe.each(DB_KINDS)('invoices on %s', (kind) => {
  let t: TestApp;
  let admin: Session;
  let user: Session;
  let other: Session;
  let invoiceId: string;
  beforeAll(async () => {
    ({ t, admin, user, other } = await appSignedIn({ kind }, { admin: DEMO.admin, user: DEMO.user, other: 'admin@other.example.com' }));
    invoiceId = (await t.db.query<{ id: string }>("SELECT i.id FROM invoices i WHERE org_id = 'org-demo' AND EXISTS (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id) ORDER BY billing_date DESC LIMIT 1")).rows[0].id;
  });
  afterAll(() => t.close());

  const list = (s: Session, body: object = {}) => call(t.app, s, { method: 'POST', url: BILLS, payload: body });

  it('lists the organisation\'s invoices newest first, by status and type, by the end of the bill id', async () => {
    const res = await list(admin);
    expect(res.statusCode).toBe(200);
    const all = res.json().data.items as Array<{ billId: string; status: string; type: string; billingDate: string; amountInclTax: number }>;
    const direct = (await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM invoices WHERE org_id = 'org-demo'")).rows[0].n;
    expect(res.json().data.total).toBe(direct);
    expect(all.map((i) => i.billingDate)).toEqual([...all.map((i) => i.billingDate)].sort().reverse());
    expect(typeof all[0].amountInclTax).toBe('number');
    const statuses = (await t.db.query<{ status: string }>("SELECT DISTINCT status FROM invoices WHERE org_id = 'org-demo'")).rows.map((r) => r.status);
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    for (const status of statuses) {
      const only = (await list(admin, { status })).json().data.items as Array<{ status: string }>;
      expect(only.length).toBeGreaterThan(0);
      expect(only.every((i) => i.status === status)).toBe(true);
    }
    const credit = (await list(admin, { type: 'credit' })).json().data.items as Array<{ type: string }>;
    expect(credit.every((i) => i.type === 'credit')).toBe(true);
    const tail = all[0].billId.slice(-4);
    expect((await list(admin, { search: { field: 'billId', value: tail } })).json().data.items.map((i: { billId: string }) => i.billId)).toContain(all[0].billId);
    expect((await list(admin, { status: 'lost' })).statusCode).toBe(400);
    expect((await list(other)).json().data.items.every((i: { billId: string }) => !all.some((a) => a.billId === i.billId))).toBe(true);
    expect((await list(user)).statusCode).toBe(403);
  });

  it('every issued invoice is due 10 days after issue or at month end, whichever is earlier', async () => {
    const rows = (await t.db.query<{ issued: Date; due: string }>('SELECT issued_at AS issued, due_date::text AS due FROM invoices WHERE issued_at IS NOT NULL')).rows;
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const r of rows) expect(r.due).toBe(dueDateOf(new Date(r.issued)));
  });

  it('shows one invoice and its SIM lines; another organisation\'s is not found', async () => {
    const res = await call(t.app, admin, { method: 'GET', url: `${BILLS}/${invoiceId}/details` });
    expect(res.statusCode).toBe(200);
    const inv = res.json().data;
    expect(inv.amountInclTax).toBeCloseTo(inv.amountExclTax + inv.taxAmount, 2);
    expect(inv.dueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const lines = await call(t.app, admin, { method: 'POST', url: '/api/customer/cube/v2/api/customer/sim/bills', payload: { invoiceId, pageSize: 100 } });
    const direct = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM invoice_lines WHERE invoice_id = $1', [invoiceId])).rows[0].n;
    expect(lines.json().data.total).toBe(direct);
    expect(lines.json().data.items[0].iccid).toMatch(/^89\d{17,18}$/);
    expect((await call(t.app, other, { method: 'GET', url: `${BILLS}/${invoiceId}/details` })).statusCode).toBe(404);
    const theirs = await call(t.app, other, { method: 'POST', url: '/api/customer/cube/v2/api/customer/sim/bills', payload: { invoiceId } });
    expect(theirs.json().data.items).toEqual([]);
  });

  it('answers a real PDF of the invoice with its lines, in Spanish when asked', async () => {
    const res = await call(t.app, admin, { method: 'GET', url: `${BILLS}/${invoiceId}/download/pdf`, headers: { language: 'es-ES' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename=".+\.pdf"$/);
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const pdf = await PDFDocument.load(res.rawPayload);
    expect(pdf.getTitle()).toMatch(/^Factura /);
    expect(pdf.getPageCount()).toBeGreaterThanOrEqual(1);
    const zh = await call(t.app, admin, { method: 'GET', url: `${BILLS}/${invoiceId}/download/pdf`, headers: { language: 'zh-CN' } });
    expect((await PDFDocument.load(zh.rawPayload)).getTitle()).toMatch(/^发票 /);
    expect((await call(t.app, other, { method: 'GET', url: `${BILLS}/${invoiceId}/download/pdf` })).statusCode).toBe(404);
    expect((await call(t.app, user, { method: 'GET', url: `${BILLS}/${invoiceId}/download/pdf` })).statusCode).toBe(403);
  });

  it.each(Object.keys(PRINTED) as Language[])('prints a published invoice in %s with €, the period\'s arrow and the console\'s word for Published', async (lang) => {
    const published = (
      await t.db.query<{ id: string; billId: string; cycleStart: string; cycleEnd: string }>(
        `SELECT i.id, i.bill_id AS "billId", i.cycle_start::text AS "cycleStart", i.cycle_end::text AS "cycleEnd" FROM invoices i
         WHERE i.org_id = 'org-demo' AND i.status = 'published' AND i.currency = 'EUR'
           AND EXISTS (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id) ORDER BY i.billing_date DESC LIMIT 1`,
      )
    ).rows[0];
    const res = await call(t.app, admin, { method: 'GET', url: `${BILLS}/${published.id}/download/pdf`, headers: { language: lang } });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBeLessThan(PDF_MAX_BYTES);
    const text = await pdfText(res.rawPayload);
    const want = PRINTED[lang];
    expect(text).toContain(`${want.title} ${published.billId}`);
    expect(text).toContain(want.published);
    for (const label of want.labels) expect(text).toContain(label);
    for (const label of want.notLabels) expect(text).not.toContain(label);
    expect(text).toContain('€');
    expect(text).toContain(`${published.cycleStart} → ${published.cycleEnd}`);
    // Nothing fell back to the standard fonts' "?".
    expect(text).not.toContain('?');
  });

  it('pages a PDF of many lines', async () => {
    const lines = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM invoice_lines WHERE invoice_id = $1', [invoiceId])).rows[0].n;
    await t.db.query(
      `INSERT INTO invoice_lines (org_id, invoice_id, iccid, sku, usage_kb, amount)
       SELECT 'org-demo', $1, '8949020000001' || lpad(g::text, 6, '0'), 'SKU-X', g * 10, 1.5 FROM generate_series(1, 120) g`,
      [invoiceId],
    );
    const res = await call(t.app, admin, { method: 'GET', url: `${BILLS}/${invoiceId}/download/pdf` });
    const pdf = await PDFDocument.load(res.rawPayload);
    // About 50 lines fit a page after the first page's header.
    expect(pdf.getPageCount()).toBeGreaterThanOrEqual(Math.ceil((lines + 120) / 60));
  });
});

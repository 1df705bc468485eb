/**
 * Invoices on the customer API: list, details, SIM lines, a real PDF in every console language, the due-date rule,
 * other organisations' ids.
 */
import { PDFDocument } from 'pdf-lib';
import { extractText, getDocumentProxy } from 'unpdf';
import { beforeAll, describe, expect, it } from 'vitest';
import { dueDateOf } from '../../common/billing.js';
import type { Language } from '../../common/limits.js';
import { BACK_OFFICE, call, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

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
  const suite = signedInSuite(kind, { billing: BACK_OFFICE, admin: DEMO.admin, user: DEMO.user, other: 'admin@other.example.com' });
  let invoiceId: string;
  beforeAll(async () => {
    invoiceId = (
      await suite.t.db.query<{ id: string }>(
        "SELECT i.id FROM invoices i WHERE org_id = 'org-demo' AND EXISTS (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id) ORDER BY billing_date DESC LIMIT 1",
      )
    ).rows[0].id;
  });

  const list = (s: Session, body: object = {}) => call(suite.t.app, s, { method: 'POST', url: BILLS, payload: body });

  it("lists the organisation's invoices newest first, by status and type, by the end of the bill id", async () => {
    const res = await list(suite.admin);
    expect(res.statusCode).toBe(200);
    const all = res.json().data.items as Array<{ billId: string; status: string; type: string; billingDate: string; amountInclTax: number }>;
    const direct = (await suite.t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM invoices WHERE org_id = 'org-demo'")).rows[0].n;
    expect(res.json().data.total).toBe(direct);
    expect(all.map((i) => i.billingDate)).toEqual([...all.map((i) => i.billingDate)].sort().reverse());
    expect(typeof all[0].amountInclTax).toBe('number');
    const statuses = (await suite.t.db.query<{ status: string }>("SELECT DISTINCT status FROM invoices WHERE org_id = 'org-demo'")).rows.map((r) => r.status);
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    for (const status of statuses) {
      const only = (await list(suite.admin, { status })).json().data.items as Array<{ status: string }>;
      expect(only.length).toBeGreaterThan(0);
      expect(only.every((i) => i.status === status)).toBe(true);
    }
    const credit = (await list(suite.admin, { type: 'credit' })).json().data.items as Array<{ type: string }>;
    expect(credit.every((i) => i.type === 'credit')).toBe(true);
    const tail = all[0].billId.slice(-4);
    expect((await list(suite.admin, { search: { field: 'billId', value: tail } })).json().data.items.map((i: { billId: string }) => i.billId)).toContain(
      all[0].billId,
    );
    expect((await list(suite.admin, { status: 'lost' })).statusCode).toBe(400);
    expect((await list(suite.other)).json().data.items.every((i: { billId: string }) => !all.some((a) => a.billId === i.billId))).toBe(true);
    expect((await list(suite.user)).statusCode).toBe(403);
  });

  it('every issued invoice is due 10 days after issue or at month end, whichever is earlier', async () => {
    const rows = (
      await suite.t.db.query<{ issued: Date; due: string }>('SELECT issued_at AS issued, due_date::text AS due FROM invoices WHERE issued_at IS NOT NULL')
    ).rows;
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const r of rows) expect(r.due).toBe(dueDateOf(new Date(r.issued)));
  });

  it("shows one invoice and its SIM lines; another organisation's is not found", async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${invoiceId}/details` });
    expect(res.statusCode).toBe(200);
    const inv = res.json().data;
    expect(inv.amountInclTax).toBeCloseTo(inv.amountExclTax + inv.taxAmount, 2);
    expect(inv.dueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const lines = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: '/api/customer/cube/v2/api/customer/sim/bills',
      payload: { invoiceId, pageSize: 100 },
    });
    // A job-made invoice has a line per SIM and one per pool (its overage; no SIM, an empty ICCID): the SIM list shows
    // the SIMs' lines only, the pool's line is in the pool details. Read on an invoice of org-demo that has a pool line.
    const pooled = (await suite.t.db.query<{ id: string }>("SELECT min(invoice_id) AS id FROM invoice_lines WHERE org_id = 'org-demo' AND pool_id IS NOT NULL"))
      .rows[0].id;
    expect(pooled).toBeTruthy();
    const count = async (id: string, where: string) =>
      (await suite.t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM invoice_lines WHERE invoice_id = $1 AND ${where}`, [id])).rows[0].n;
    expect(lines.json().data.total).toBe(await count(invoiceId, 'pool_id IS NULL'));
    const simLinesOf = async (id: string, order: 'asc' | 'desc') => {
      const res = await call(suite.t.app, suite.admin, {
        method: 'POST',
        url: '/api/customer/cube/v2/api/customer/sim/bills',
        payload: { invoiceId: id, pageSize: 100, sort: 'iccid', order },
      });
      return res.json().data as { total: number; items: Array<{ iccid: string }> };
    };
    const poolLines = await count(pooled, 'pool_id IS NOT NULL');
    expect(poolLines).toBeGreaterThan(0);
    for (const order of ['asc', 'desc'] as const) {
      // Sorted by ICCID either way, no pool line comes first or last.
      const page = await simLinesOf(pooled, order);
      expect(page.total).toBe(await count(pooled, 'pool_id IS NULL'));
      expect(page.items.length).toBe(Math.min(100, page.total));
      for (const l of page.items) expect(l.iccid).toMatch(/^89\d{17,18}$/);
    }
    const pools = await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${pooled}/shared_pool/details` });
    expect(pools.json().data.items.length).toBe(poolLines);
    expect((await call(suite.t.app, suite.other, { method: 'GET', url: `${BILLS}/${invoiceId}/details` })).statusCode).toBe(404);
    const theirs = await call(suite.t.app, suite.other, { method: 'POST', url: '/api/customer/cube/v2/api/customer/sim/bills', payload: { invoiceId } });
    expect(theirs.json().data.items).toEqual([]);
  });

  it('answers a real PDF of the invoice with its lines, in Spanish when asked', async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${invoiceId}/download/pdf`, headers: { language: 'es-ES' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename=".+\.pdf"$/);
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const pdf = await PDFDocument.load(res.rawPayload);
    expect(pdf.getTitle()).toMatch(/^Factura /);
    expect(pdf.getPageCount()).toBeGreaterThanOrEqual(1);
    const zh = await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${invoiceId}/download/pdf`, headers: { language: 'zh-CN' } });
    expect((await PDFDocument.load(zh.rawPayload)).getTitle()).toMatch(/^发票 /);
    expect((await call(suite.t.app, suite.other, { method: 'GET', url: `${BILLS}/${invoiceId}/download/pdf` })).statusCode).toBe(404);
    expect((await call(suite.t.app, suite.user, { method: 'GET', url: `${BILLS}/${invoiceId}/download/pdf` })).statusCode).toBe(403);
  });

  it.each(Object.keys(PRINTED) as Language[])(
    "prints a published invoice in %s with €, the period's arrow and the console's word for Published",
    async (lang) => {
      const published = (
        await suite.t.db.query<{ id: string; billId: string; cycleStart: string; cycleEnd: string }>(
          `SELECT i.id, i.bill_id AS "billId", i.cycle_start::text AS "cycleStart", i.cycle_end::text AS "cycleEnd" FROM invoices i
         WHERE i.org_id = 'org-demo' AND i.status = 'published' AND i.currency = 'EUR'
           AND EXISTS (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id) ORDER BY i.billing_date DESC LIMIT 1`,
        )
      ).rows[0];
      const res = await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${published.id}/download/pdf`, headers: { language: lang } });
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.length).toBeLessThan(PDF_MAX_BYTES);
      const text = await pdfText(res.rawPayload);
      const want = PRINTED[lang];
      expect(text).toContain(`${want.title} ${published.billId}`);
      expect(text).toContain(want.published);
      for (const label of want.labels) expect(text).toContain(label);
      for (const label of want.notLabels) expect(text).not.toContain(label);
      expect(text).toContain('€');
      // Days as the reader's language writes them.
      const day = (d: string) => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${d}T00:00:00Z`));
      expect(text).toContain(`${day(published.cycleStart)} → ${day(published.cycleEnd)}`);
      // Nothing fell back to the standard fonts' "?".
      expect(text).not.toContain('?');
    },
  );

  it('prints the payments, what is still due and every version, in English and in Chinese', async () => {
    const published = (
      await suite.t.db.query<{ id: string }>(
        `SELECT i.id FROM invoices i WHERE i.org_id = 'org-demo' AND i.status = 'published' AND i.type = 'post_payment' AND i.is_current AND i.currency = 'EUR'
            AND NOT EXISTS (SELECT 1 FROM invoice_settles s WHERE s.invoice_id = i.id) AND i.amount_incl_tax > 2 ORDER BY i.billing_date DESC LIMIT 1`,
      )
    ).rows[0];
    expect(published).toBeDefined();
    // A correction (version 2, v1 obsolete), published, then part of it paid.
    const v2 = (
      await call(suite.t.app, suite.billing, { method: 'POST', url: `${BILLS}/${published.id}/versions`, payload: { reason: 'Late CDRs of the month' } })
    ).json().data as { id: string; version: number };
    expect(v2.version).toBe(2);
    expect((await call(suite.t.app, suite.billing, { method: 'POST', url: `${BILLS}/${v2.id}/publish` })).statusCode).toBe(200);
    const paidOn = new Date().toISOString().slice(0, 10);
    const settled = await call(suite.t.app, suite.billing, {
      method: 'POST',
      url: `${BILLS}/${v2.id}/settles`,
      payload: { amount: 1.23, paidOn, reference: 'SEPA-PDF-1' },
    });
    expect(settled.statusCode).toBe(200);
    const row = (
      await suite.t.db.query<{ outstanding: string; v1Made: Date; v2Made: Date }>(
        `SELECT (v2.amount_incl_tax - 1.23)::text AS outstanding, v1.created_at AS "v1Made", v2.created_at AS "v2Made" FROM invoices v2 JOIN invoices v1 ON v1.id = $2 WHERE v2.id = $1`,
        [v2.id, published.id],
      )
    ).rows[0];
    const expectations: Record<'en-US' | 'zh-CN', { words: string[] }> = {
      'en-US': { words: ['Payments', 'Paid on', 'Reference', 'Still due', 'Versions', 'Made on', 'v2 · current', 'Obsolete', 'Published'] },
      'zh-CN': { words: ['付款记录', '付款日期', '付款参考号', '待付金额', '版本记录', '生成日期', 'v2 · 当前', '已作废', '已发布'] },
    };
    for (const lang of ['en-US', 'zh-CN'] as const) {
      const res = await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${v2.id}/download/pdf`, headers: { language: lang } });
      expect(res.statusCode).toBe(200);
      const text = await pdfText(res.rawPayload);
      const money = (v: string) => new Intl.NumberFormat(lang, { style: 'currency', currency: 'EUR' }).format(v as unknown as number);
      const day = (d: Date | string) =>
        new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' }).format(typeof d === 'string' ? new Date(`${d}T00:00:00Z`) : d);
      for (const w of expectations[lang].words) expect(text).toContain(w);
      expect(text).toContain('SEPA-PDF-1');
      expect(text).toContain(money('1.23'));
      expect(text).toContain(money(row.outstanding));
      expect(text).toContain(day(paidOn));
      expect(text).toContain(day(row.v1Made));
      expect(text).toContain(day(row.v2Made));
      expect(text).toContain('Late CDRs of the month');
      expect(text).toMatch(/\bv1\b/);
      if (lang === 'zh-CN') expect(text).toMatch(/\d{4}年\d{1,2}月\d{1,2}日/);
      expect(text).not.toContain('?');
    }
    // The obsolete version prints the same history: it is the bill's.
    const old = await pdfText((await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${published.id}/download/pdf` })).rawPayload);
    expect(old).toContain('v2 · current');
    expect(old).toContain('No payments recorded');
  });

  it('pages a PDF of many lines', async () => {
    const lines = (await suite.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM invoice_lines WHERE invoice_id = $1', [invoiceId])).rows[0].n;
    await suite.t.db.query(
      `INSERT INTO invoice_lines (org_id, invoice_id, iccid, sku, usage_kb, amount)
       SELECT 'org-demo', $1, '8949020000001' || lpad(g::text, 6, '0'), 'SKU-X', g * 10, 1.5 FROM generate_series(1, 120) g`,
      [invoiceId],
    );
    const res = await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${invoiceId}/download/pdf` });
    const pdf = await PDFDocument.load(res.rawPayload);
    // About 50 lines fit a page after the first page's header.
    expect(pdf.getPageCount()).toBeGreaterThanOrEqual(Math.ceil((lines + 120) / 60));
  });
});

/**
 * An invoice's PDF tells what its page tells: "SIM charges (n)" counts the SIMs the page lists (a shared pool's
 * line, which has no ICCID, is not a SIM), the pools' charges stand apart under their names, and the first page says
 * how to pay: the settlement customer, the bank, the IBAN and the BIC, in each of the four languages. On PGlite and,
 * with TEST_DATABASE_URL, PostgreSQL.
 */
import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import type { Language } from '../../common/limits.js';
import { call, DB_KINDS, DEMO, signedInSuite } from '../helper.js';

const C = '/api/customer/cube/v2/api/customer';
/** Each language's words of the PDF for the SIM and pool sections and the payment details. */
const WORDS: Record<Language, { sims: string; pools: string; payment: string[] }> = {
  'en-US': { sims: 'SIM charges', pools: 'Pool charges', payment: ['Payment details', 'Settlement customer', 'Bank', 'IBAN', 'BIC'] },
  'zh-CN': { sims: 'SIM 费用', pools: '共享池费用', payment: ['付款信息', '开户银行', 'IBAN', 'BIC'] },
  'zh-TW': { sims: 'SIM 費用', pools: '共享池費用', payment: ['付款資訊', '開戶銀行', 'IBAN', 'BIC'] },
  'es-ES': { sims: 'Cargos por SIM', pools: 'Cargos por bolsa compartida', payment: ['Datos de pago', 'Banco', 'IBAN', 'BIC'] },
};

describe.each(DB_KINDS)('invoice PDF lines and payment details on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin });

  it.each(Object.keys(WORDS) as Language[])('counts SIMs, shows pools as pools and prints how to pay on page 1, in %s', async (lang) => {
    const inv = (
      await suite.t.db.query<{ id: string; sims: number; pools: number; bank: string; iban: string; bic: string; customer: string }>(
        `SELECT i.id, count(l.*) FILTER (WHERE l.pool_id IS NULL)::int AS sims, count(l.*) FILTER (WHERE l.pool_id IS NOT NULL)::int AS pools,
                i.bank_details->>'bank' AS bank, i.bank_details->>'iban' AS iban, i.bank_details->>'bic' AS bic, i.settlement_customer AS customer
           FROM invoices i JOIN invoice_lines l ON l.org_id = i.org_id AND l.invoice_id = i.id
          WHERE i.org_id = 'org-demo' GROUP BY i.id ORDER BY count(l.*) FILTER (WHERE l.pool_id IS NOT NULL) DESC, i.billing_date DESC LIMIT 1`,
      )
    ).rows[0];
    expect(inv.pools).toBeGreaterThan(0);
    // The page's SIM list counts the same SIMs.
    const page = await call(suite.t.app, suite.admin, { method: 'POST', url: `${C}/sim/bills`, payload: { invoiceId: inv.id, page: 1, pageSize: 1 } });
    expect(page.statusCode).toBe(200);
    expect(page.json().data.total).toBe(inv.sims);
    const poolNames = (
      await suite.t.db.query<{ name: string }>('SELECT DISTINCT p.name FROM invoice_lines l JOIN shared_pools p ON p.id = l.pool_id WHERE l.invoice_id = $1', [
        inv.id,
      ])
    ).rows.map((r) => r.name);

    const res = await call(suite.t.app, suite.admin, { method: 'GET', url: `${C}/bills/${inv.id}/download/pdf`, headers: { language: lang } });
    expect(res.statusCode).toBe(200);
    const pages = (await extractText(await getDocumentProxy(new Uint8Array(res.rawPayload)), { mergePages: false })).text as string[];
    const all = pages.join('\n');
    const w = WORDS[lang];
    const count = (n: number) => new RegExp(`${w.sims}\\s?[(（]${n}[)）]`);
    expect(all).toMatch(count(inv.sims));
    expect(all).toMatch(new RegExp(`${w.pools}\\s?[(（]${inv.pools}[)）]`));
    for (const name of poolNames) expect(all).toContain(name);
    for (const word of w.payment) expect(pages[0]).toContain(word);
    for (const value of [inv.bank, inv.iban, inv.bic, inv.customer]) expect(pages[0]).toContain(value);
  });
});

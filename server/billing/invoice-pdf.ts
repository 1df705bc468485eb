/**
 * An invoice as a PDF (pdf-lib): header, parties, the billing period and dates, the amounts, the payments (settles)
 * with what is still due, the version history, the SIM lines (paged) and the bank details, in the caller's language
 * with its money and dates (Intl) and Unicode fonts (server/pdf/pdf-text.ts). Labels come from
 * common/locales ("pdf.") and, for the status, from the words it shares with the console (common/locales,
 * invoices.enum.status), so the PDF says "Published" where the console does.
 */
import { PDFDocument, rgb, type PDFPage } from 'pdf-lib';
import { translate } from '../../common/i18n.js';
import type { Language } from '../../common/limits.js';
import { consoleLabel } from '../http/labels.js';
import { PdfText } from '../pdf/pdf-text.js';

export interface InvoiceForPdf {
  billId: string;
  status: string;
  type: string;
  version: number;
  billingCycle: string;
  cycleStart: string;
  cycleEnd: string;
  billingDate: string;
  dueDate: string;
  currency: string;
  amountExclTax: number;
  taxRate: number;
  taxAmount: number;
  amountInclTax: number;
  settlementCustomer: string | null;
  orgName: string;
  bankDetails: Record<string, unknown>;
  /** The SIM lines, one a SIM. */
  lines: Array<{ iccid: string; sku: string | null; usageKb: number; amount: number }>;
  /** A shared pool's lines (its overage), which charge a pool, not a SIM. */
  poolLines: Array<{ poolId: string; poolName: string | null; sku: string | null; usageKb: number; amount: number }>;
  /** Payments, oldest first; amounts as the database's exact decimal text, never a float. */
  /** kind deposit: a draw on the organisation's deposit, named in the reader's words instead of its reference. */
  settles: Array<{ paidOn: string; reference: string; amount: string; kind: 'payment' | 'deposit' }>;
  paid: string;
  outstanding: string;
  /** Every version of the bill, newest first. */
  versions: Array<{ version: number; status: string; createdAt: string | Date; correctionReason: string | null; isCurrent: boolean }>;
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;

/** The invoice as a PDF in the caller's language. */
export async function invoicePdf(inv: InvoiceForPdf, lang: Language): Promise<Uint8Array> {
  const t = (key: string, params: Record<string, unknown> = {}) => translate(lang, `pdf.${key}`, params);
  // A decimal text is formatted as it is (Intl takes it exactly); a number only where the row still holds one.
  const money = (n: number | string) => new Intl.NumberFormat(lang, { style: 'currency', currency: inv.currency }).format(n as number);
  const dateFormat = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' });
  /** A calendar day (YYYY-MM-DD) or an instant, as the reader's language writes a date (UTC, as the pages show days). */
  const date = (d: string | Date) => dateFormat.format(typeof d === 'string' && d.length === 10 ? new Date(`${d}T00:00:00Z`) : new Date(d));
  const percent = (n: number) => new Intl.NumberFormat(lang, { style: 'percent', minimumFractionDigits: 2 }).format(n);
  const doc = await PDFDocument.create();
  doc.setTitle(`${t('invoice')} ${inv.billId}`);
  doc.setCreator('IoT Console');
  doc.setCreationDate(new Date(`${inv.billingDate}T00:00:00Z`));
  const fonts = await PdfText.create(lang);

  let page: PDFPage = doc.addPage(A4);
  let y = A4[1] - MARGIN;
  const text = (s: string, x: number, size = 10, bold = false, color = rgb(0.1, 0.1, 0.1)) => fonts.draw(page, s, x, y, { size, bold, color });
  const right = (s: string, xRight: number, size = 10, bold = false, color?: ReturnType<typeof rgb>) =>
    text(s, xRight - fonts.width(s, size, bold), size, bold, color);
  const newPage = () => {
    page = doc.addPage(A4);
    y = A4[1] - MARGIN;
  };
  const need = (height: number) => {
    if (y - height < MARGIN) newPage();
  };

  text(`${t('invoice')} ${inv.billId}`, MARGIN, 20, true);
  right(consoleLabel(lang, `invoices.enum.status.${inv.status}`) ?? inv.status, A4[0] - MARGIN, 12, true);
  y -= 18;
  // A draft or an obsolete invoice says why it is not to be paid, under its status.
  const note = inv.status === 'draft' || inv.status === 'obsolete' ? t(`statusNote.${inv.status}`) : '';
  if (note) right(note, A4[0] - MARGIN, 9, false, rgb(0.7, 0.1, 0.1));
  text(`${t(`type.${inv.type}`)} · ${t('version', { n: inv.version })}`, MARGIN, 10);
  y -= 30;
  text(t('billedTo'), MARGIN, 9, true);
  y -= 14;
  text(inv.settlementCustomer ?? inv.orgName, MARGIN, 11);
  y -= 28;

  const rows: Array<[string, string]> = [
    [t('billingCycle'), inv.billingCycle],
    [t('period'), `${date(inv.cycleStart)} → ${date(inv.cycleEnd)}`],
    [t('billingDate'), date(inv.billingDate)],
    [t('dueDate'), date(inv.dueDate)],
  ];
  for (const [k, v] of rows) {
    text(k, MARGIN, 10, true);
    text(v, MARGIN + 140, 10);
    y -= 16;
  }
  y -= 14;
  const totals: Array<[string, string, boolean]> = [
    [t('amountExclTax'), money(inv.amountExclTax), false],
    [t('tax', { rate: percent(inv.taxRate) }), money(inv.taxAmount), false],
    [t('amountInclTax'), money(inv.amountInclTax), true],
  ];
  for (const [k, v, strong] of totals) {
    text(k, A4[0] - MARGIN - 260, 11, strong);
    right(v, A4[0] - MARGIN, 11, strong);
    y -= 18;
  }
  y -= 20;

  // How to pay, on the first page as the invoice page shows it: who settles it, and the bank, IBAN and BIC, with the
  // words the page uses (common/locales "fields.").
  const bd = (inv.bankDetails ?? {}) as Record<string, unknown>;
  const payment: Array<[string, unknown]> = [
    ['settlementCustomer', inv.settlementCustomer ?? inv.orgName],
    ['bankName', bd.bank],
    ['iban', bd.iban],
    ['bic', bd.bic],
  ];
  const shownPayment = payment.filter(([, v]) => v !== null && v !== undefined && v !== '');
  if (shownPayment.length) {
    text(t('bank'), MARGIN, 12, true);
    y -= 16;
    for (const [k, v] of shownPayment) {
      text(translate(lang, `fields.${k}`), MARGIN, 9, true);
      text(String(v), MARGIN + 140, 9);
      y -= 14;
    }
    y -= 16;
  }

  /** A text cut with an ellipsis to fit width points. */
  const fit = (s: string, width: number, size: number) => {
    if (fonts.width(s, size) <= width) return s;
    let cut = s;
    while (cut && fonts.width(`${cut}…`, size) > width) cut = cut.slice(0, -1);
    return `${cut}…`;
  };

  // Payments: each one, then what they sum to and what is still due.
  need(48 + Math.min(inv.settles.length, 3) * 13);
  text(t('settles.title'), MARGIN, 12, true);
  y -= 18;
  if (inv.settles.length) {
    text(t('settles.paidOn'), MARGIN, 9, true);
    text(t('settles.reference'), MARGIN + 140, 9, true);
    right(t('amount'), A4[0] - MARGIN, 9, true);
    y -= 14;
    for (const s of inv.settles) {
      need(13);
      text(date(s.paidOn), MARGIN, 9);
      text(fit(s.kind === 'deposit' ? t('settles.deposit') : s.reference, 230, 9), MARGIN + 140, 9);
      right(money(s.amount), A4[0] - MARGIN, 9);
      y -= 13;
    }
  } else {
    text(t('settles.none'), MARGIN, 9, false, rgb(0.4, 0.4, 0.4));
    y -= 13;
  }
  need(32);
  y -= 4;
  for (const [k, v, strong] of [
    [t('settles.paid'), money(inv.paid), false],
    [t('settles.outstanding'), money(inv.outstanding), true],
  ] as const) {
    text(k, A4[0] - MARGIN - 260, 10, strong);
    right(v, A4[0] - MARGIN, 10, strong);
    y -= 15;
  }
  y -= 16;

  // Every version of the bill, the current one marked.
  need(34 + Math.min(inv.versions.length, 3) * 13);
  text(t('versions.title'), MARGIN, 12, true);
  y -= 18;
  text(t('versions.number'), MARGIN, 9, true);
  text(t('versions.status'), MARGIN + 70, 9, true);
  text(t('versions.madeOn'), MARGIN + 170, 9, true);
  text(t('versions.reason'), MARGIN + 280, 9, true);
  y -= 14;
  for (const v of inv.versions) {
    need(13);
    text(`v${v.version}${v.isCurrent ? ` · ${t('versions.current')}` : ''}`, MARGIN, 9, v.isCurrent);
    text(consoleLabel(lang, `invoices.enum.status.${v.status}`) ?? v.status, MARGIN + 70, 9);
    text(date(v.createdAt), MARGIN + 170, 9);
    text(v.correctionReason ? fit(v.correctionReason, A4[0] - 2 * MARGIN - 280, 9) : '—', MARGIN + 280, 9);
    y -= 13;
  }
  y -= 16;

  if (inv.lines.length) {
    text(t('lines', { count: inv.lines.length }), MARGIN, 12, true);
    y -= 18;
    const header = () => {
      text('ICCID', MARGIN, 9, true);
      text('SKU', MARGIN + 170, 9, true);
      right(t('usage'), MARGIN + 390, 9, true);
      right(t('amount'), A4[0] - MARGIN, 9, true);
      y -= 14;
    };
    header();
    for (const line of inv.lines) {
      if (y - 14 < MARGIN) {
        newPage();
        header();
      }
      text(line.iccid, MARGIN, 9);
      text(line.sku ?? '—', MARGIN + 170, 9);
      right(`${(line.usageKb / 1024).toFixed(1)} MB`, MARGIN + 390, 9);
      right(money(line.amount), A4[0] - MARGIN, 9);
      y -= 13;
    }
    y -= 16;
  }

  // A pool's charges are the pool's, not a SIM's: their own section, named by the pool.
  if (inv.poolLines.length) {
    need(48);
    text(t('poolLines', { count: inv.poolLines.length }), MARGIN, 12, true);
    y -= 18;
    text(t('pool'), MARGIN, 9, true);
    text('SKU', MARGIN + 170, 9, true);
    right(t('usage'), MARGIN + 390, 9, true);
    right(t('amount'), A4[0] - MARGIN, 9, true);
    y -= 14;
    for (const line of inv.poolLines) {
      need(13);
      text(fit(line.poolName ?? line.poolId, 160, 9), MARGIN, 9);
      text(line.sku ?? '—', MARGIN + 170, 9);
      right(`${(line.usageKb / 1024).toFixed(1)} MB`, MARGIN + 390, 9);
      right(money(line.amount), A4[0] - MARGIN, 9);
      y -= 13;
    }
  }

  const pages = doc.getPages();
  pages.forEach((p, i) => {
    fonts.draw(p, `${inv.billId} · ${t('page', { n: i + 1, total: pages.length })}`, MARGIN, 30, { size: 8, color: rgb(0.4, 0.4, 0.4) });
  });
  await fonts.finish(doc);
  return doc.save();
}

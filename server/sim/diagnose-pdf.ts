/**
 * A SIM's diagnose report as a PDF (pdf-lib): the SIM, the verdict and every check with its reason, in the caller's
 * language with Unicode fonts (server/pdf/pdf-text.ts), as invoices are.
 */
import { PDFDocument, rgb, type PDFPage } from 'pdf-lib';
import type { Language } from '../../common/limits.js';
import type { CheckResult } from '../domain/diagnose.js';
import { PdfText } from '../pdf/pdf-text.js';

export interface DiagnoseReport {
  iccid: string;
  facts: Array<[string, string]>;
  at: Date;
  verdict: CheckResult;
  checks: Array<{ title: string; result: CheckResult; message: string; at?: string }>;
}

/** The words the PDF prints, in its language (from common/locales through the caller). */
export interface DiagnosePdfText {
  title: string;
  made: string;
  verdict: Record<CheckResult, string>;
  result: Record<CheckResult, string>;
  check: string;
  outcome: string;
  reason: string;
  page: (n: number, total: number) => string;
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;
const COLORS: Record<CheckResult, ReturnType<typeof rgb>> = { pass: rgb(0.13, 0.55, 0.13), warn: rgb(0.8, 0.5, 0), fail: rgb(0.8, 0.1, 0.1) };

/** The report as a PDF in lang, with the words of text (in the same language). */
export async function diagnosePdf(report: DiagnoseReport, text: DiagnosePdfText, lang: Language): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`${text.title} ${report.iccid}`);
  doc.setSubject(report.iccid);
  doc.setCreator('IoT Console');
  doc.setCreationDate(report.at);
  const fonts = await PdfText.create(lang);
  let page: PDFPage = doc.addPage(A4);
  let y = A4[1] - MARGIN;
  const draw = (s: string, x: number, size = 10, bold = false, color = rgb(0.1, 0.1, 0.1)) => fonts.draw(page, s, x, y, { size, bold, color });

  draw(text.title, MARGIN, 20, true);
  y -= 24;
  draw(`ICCID ${report.iccid}`, MARGIN, 13, true);
  y -= 16;
  draw(text.made, MARGIN, 9, false, rgb(0.4, 0.4, 0.4));
  y -= 26;
  for (const [label, value] of report.facts) {
    draw(label, MARGIN, 10, true);
    draw(value, MARGIN + 150, 10);
    y -= 15;
  }
  y -= 12;
  page.drawRectangle({ x: MARGIN, y: y - 8, width: A4[0] - 2 * MARGIN, height: 28, color: COLORS[report.verdict], opacity: 0.12 });
  draw(text.verdict[report.verdict], MARGIN + 10, 13, true, COLORS[report.verdict]);
  y -= 40;

  const col = { check: MARGIN, outcome: MARGIN + 150, reason: MARGIN + 230 };
  const reasonWidth = A4[0] - MARGIN - col.reason;
  const header = () => {
    draw(text.check, col.check, 9, true);
    draw(text.outcome, col.outcome, 9, true);
    draw(text.reason, col.reason, 9, true);
    y -= 6;
    page.drawLine({ start: { x: MARGIN, y }, end: { x: A4[0] - MARGIN, y }, thickness: 0.5, color: rgb(0.7, 0.7, 0.7) });
    y -= 14;
  };
  header();
  for (const c of report.checks) {
    const reason = fonts.wrap(c.message + (c.at ? ` (${c.at.slice(0, 16).replace('T', ' ')} UTC)` : ''), 10, reasonWidth);
    const titleLines = fonts.wrap(c.title, 10, col.outcome - col.check - 8, true);
    const height = Math.max(reason.length, titleLines.length) * 13 + 8;
    if (y - height < MARGIN + 20) {
      page = doc.addPage(A4);
      y = A4[1] - MARGIN;
      header();
    }
    const top = y;
    titleLines.forEach((l, i) => {
      y = top - i * 13;
      draw(l, col.check, 10, true);
    });
    y = top;
    draw(text.result[c.result], col.outcome, 10, true, COLORS[c.result]);
    reason.forEach((l, i) => {
      y = top - i * 13;
      draw(l, col.reason, 10);
    });
    y = top - height;
  }

  const pages = doc.getPages();
  pages.forEach((p, i) => {
    fonts.draw(p, `${report.iccid} · ${text.page(i + 1, pages.length)}`, MARGIN, 30, { size: 8, color: rgb(0.4, 0.4, 0.4) });
  });
  await fonts.finish(doc);
  return doc.save();
}

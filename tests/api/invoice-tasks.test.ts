/**
 * Invoices through the task center: the invoice job run on demand for a closed month (its bounds on both
 * sides, the caller's organisation only, one invoice beside the monthly timer), and the details download direct up to
 * the threshold and a task above it, as CSV or XLSX, headed in the requester's language; XLSX refused above a sheet's
 * 1,048,575 data lines.
 */
import { unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { translate } from '../../common/i18n.js';
import { LANGUAGES, type Language } from '../../common/limits.js';
import { monthOf, runInvoiceJob } from '../../server/billing/invoice-job.js';
import { ApiError } from '../../server/http/api-error.js';
import { checkDetailsSize, DETAILS_DIRECT_MAX_LINES, XLSX_MAX_DATA_LINES } from '../../server/billing/invoice-tasks.js';
import { BACK_OFFICE, call, DB_KINDS, DEMO, inOrg, type Session, signedInSuite } from '../helper.js';

const BILLS = '/api/customer/cube/v2/api/customer/bills';
/** The month before or after a YYYY-MM month. */
const shift = (month: string, by: number) => {
  const { start } = monthOf(month);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + by, 1)).toISOString().slice(0, 7);
};

describe.each(DB_KINDS)('invoices in the task center on %s', (kind) => {
  const suite = signedInSuite(
    { kind, config: { clock: () => clock } },
    { billing: BACK_OFFICE, admin: DEMO.admin, user: DEMO.user, operator: DEMO.operator, other: 'admin@other.example.com' },
  );
  const billingOther = () => inOrg(suite.billing, 'OTHER');
  // The seeded CDRs' month, closed an hour ago.
  const cycle = new Date().toISOString().slice(0, 7);
  const clock = new Date(monthOf(cycle).end.getTime() + 3_600_000);

  const generate = (s: Session, month: unknown, language: Language = 'en-US') =>
    call(suite.t.app, s, { method: 'POST', url: `${BILLS}/generate`, payload: { month }, headers: { language } });
  const task = async (id: string) =>
    (
      await suite.t.db.query<{ status: string; result: Record<string, unknown>; remark: string; quantity: number; kind: string; run_after: Date | null }>(
        'SELECT status, result, remark, quantity, kind, run_after FROM tasks WHERE id = $1',
        [id],
      )
    ).rows[0];
  const runJobs = async () => {
    while (await suite.t.app.jobs.runOnce());
  };
  const demoInvoices = async (month: string) =>
    (
      await suite.t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM invoices WHERE org_id = 'org-demo' AND billing_cycle = $1 AND type = 'post_payment'",
        [month],
      )
    ).rows[0].n;

  it('offers the closed months from the first month with a bundle in use to last month', async () => {
    const res = await call(suite.t.app, suite.billing, { method: 'GET', url: `${BILLS}/generate/months` });
    expect(res.statusCode).toBe(200);
    const first = (
      await suite.t.db.query<{ m: string }>(
        "SELECT to_char(min(activated_at) AT TIME ZONE 'UTC', 'YYYY-MM') AS m FROM bundle_orders WHERE org_id = 'org-demo' AND type <> 'BEFORE_TEST'",
      )
    ).rows[0].m;
    expect(res.json().data).toEqual({ earliest: first < cycle ? first : cycle, latest: cycle });
    expect((await call(suite.t.app, suite.user, { method: 'GET', url: `${BILLS}/generate/months` })).statusCode).toBe(403);
    expect((await call(suite.t.app, suite.operator, { method: 'GET', url: `${BILLS}/generate/months` })).statusCode).toBe(403);
  });

  it.each(LANGUAGES)('refuses the current month and a future one, naming the field and the rule, in %s', async (lang) => {
    for (const month of [shift(cycle, 1), shift(cycle, 2)]) {
      const res = await generate(suite.billing, month, lang);
      expect(res.statusCode).toBe(400);
      expect(res.json().data).toEqual({ field: 'month', rule: 'maximum' });
      expect(res.json().status.message).toContain(translate(lang, 'validation.maximum', { field: 'month', limit: cycle, unit: '' }));
    }
  });

  it('refuses a month before the first one with a bundle in use, and a month that is not one', async () => {
    const { earliest } = (await call(suite.t.app, suite.billing, { method: 'GET', url: `${BILLS}/generate/months` })).json().data as { earliest: string };
    const before = await generate(suite.billing, shift(earliest, -1), 'zh-CN');
    expect(before.statusCode).toBe(400);
    expect(before.json().data).toEqual({ field: 'month', rule: 'minimum' });
    expect(before.json().status.message).toContain(translate('zh-CN', 'validation.minimum', { field: 'month', limit: earliest, unit: '' }));
    for (const bad of ['2026-13', '2026-1', '202611', 202611, '']) expect((await generate(suite.billing, bad)).statusCode).toBe(400);
    expect((await call(suite.t.app, suite.billing, { method: 'POST', url: `${BILLS}/generate`, payload: { month: cycle, org: 'org-other' } })).statusCode).toBe(
      400,
    );
    expect((await generate(suite.user, cycle)).statusCode).toBe(403);
    expect((await generate(suite.operator, cycle)).statusCode).toBe(403);
  });

  it('the earliest month is accepted: a task that finds nothing, or the invoice, as the job would', async () => {
    const { earliest } = (await call(suite.t.app, suite.billing, { method: 'GET', url: `${BILLS}/generate/months` })).json().data as { earliest: string };
    if (earliest === cycle) return;
    const res = await generate(suite.billing, earliest);
    expect(res.statusCode).toBe(200);
    await runJobs();
    expect((await task(res.json().data.taskId)).status).toBe('done');
  });

  it("runs the job for last month as a task of the caller's organisation, beside the monthly timer: one invoice", async () => {
    expect(await demoInvoices(cycle)).toBe(0);
    const res = await generate(suite.billing, cycle);
    expect(res.statusCode).toBe(200);
    const { taskId, referenceId } = res.json().data as { taskId: string; referenceId: string };
    expect(referenceId).toMatch(/^RUN-\d{8}-/);
    const mine = (await call(suite.t.app, suite.billing, { method: 'GET', url: '/api/job/rest/job/my?status=processing' })).json().data.items as Array<{
      id: string;
      task: string;
    }>;
    expect(mine).toContainEqual(expect.objectContaining({ id: taskId, task: 'invoice_run' }));
    // The monthly timer of another instance and the task at once.
    const [timer] = await Promise.all([runInvoiceJob(suite.t.db, clock, 'timer-instance', 0), suite.t.app.jobs.runOnce()]);
    expect(timer.ran).toBe(true);
    let row = await task(taskId);
    if (row.status === 'processing') {
      // The timer held this invoice's run: the task waits for it (30 s); its time comes now.
      expect(row.run_after).not.toBeNull();
      await suite.t.db.query('UPDATE tasks SET run_after = now() WHERE id = $1', [taskId]);
      await runJobs();
      row = await task(taskId);
    }
    expect(row.status).toBe('done');
    expect(await demoInvoices(cycle)).toBe(1);
    const inv = (
      await suite.t.db.query<{ id: string; bill_id: string }>(
        "SELECT id, bill_id FROM invoices WHERE org_id = 'org-demo' AND billing_cycle = $1 AND type = 'post_payment'",
        [cycle],
      )
    ).rows[0];
    expect(row.result).toMatchObject({ month: cycle, billId: inv.bill_id, invoiceId: inv.id });
    expect(row.remark).toBe(`${cycle} · ${inv.bill_id}`);
    // Asked again: the invoice made is left as it is.
    const again = (await generate(suite.billing, cycle)).json().data.taskId as string;
    await runJobs();
    expect((await task(again)).result).toMatchObject({ made: false, billId: inv.bill_id });
    expect(await demoInvoices(cycle)).toBe(1);
    expect(
      (await suite.t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE type = 'invoice' AND subtype = 'created' AND subject = $1", [inv.id]))
        .rows[0].n,
    ).toBe(1);
    const log = (await call(suite.t.app, suite.billing, { method: 'GET', url: `/api/job/rest/logs/provider/result/${again}` })).json().data.lines as Array<{
      text: string;
    }>;
    expect(log.map((l) => l.text)).toContain(translate('en-US', 'taskLog.invoiceExists', { month: cycle, billId: inv.bill_id }));
    const audit = (
      await suite.t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE action = 'generate' AND entity = 'invoice' AND entity_id = $1", [
        cycle,
      ])
    ).rows[0].n;
    expect(audit).toBe(2);
  });

  it("a run for the caller's organisation makes no invoice for another", async () => {
    const month = shift(cycle, -1);
    const { earliest } = (await call(suite.t.app, billingOther(), { method: 'GET', url: `${BILLS}/generate/months` })).json().data as { earliest: string };
    if (month < earliest) return;
    const before = (
      await suite.t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM invoices WHERE org_id <> 'org-other' AND billing_cycle = $1", [month])
    ).rows[0].n;
    const res = await generate(billingOther(), month);
    expect(res.statusCode).toBe(200);
    await runJobs();
    expect((await task(res.json().data.taskId)).status).toBe('done');
    expect(
      (await suite.t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM invoices WHERE org_id <> 'org-other' AND billing_cycle = $1", [month])).rows[0].n,
    ).toBe(before);
  });

  describe('the details download', () => {
    let id = '';
    const download = (s: Session, format?: string, language: Language = 'en-US') =>
      call(suite.t.app, s, { method: 'GET', url: `${BILLS}/${id}/details/download${format ? `?format=${format}` : ''}`, headers: { language } });
    /** The text of the first row of an XLSX file's sheet. */
    const xlsxHeader = (bytes: Buffer) =>
      [
        ...(/<row r="1">(.*?)<\/row>/.exec(new TextDecoder().decode(unzipSync(new Uint8Array(bytes))['xl/worksheets/sheet1.xml']))?.[1] ?? '').matchAll(
          /<t>(.*?)<\/t>/g,
        ),
      ].map((m) => m[1]);
    const linesOf = async () => (await suite.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM invoice_lines WHERE invoice_id = $1', [id])).rows[0].n;
    const addLines = (n: number, from: number) =>
      suite.t.db.query(
        `INSERT INTO invoice_lines (org_id, invoice_id, iccid, sku, usage_kb, overage_kb, overage_amount, amount)
         SELECT 'org-demo', $1, '8949099' || lpad(g::text, 12, '0'), 'SKU-T', g, 0, 0, 0.05 FROM generate_series($2::int, $2::int + $3::int - 1) g`,
        [id, from, n],
      );
    /** The rows of the one sheet of an XLSX file. */
    const xlsxRows = (bytes: Buffer) => (new TextDecoder().decode(unzipSync(new Uint8Array(bytes))['xl/worksheets/sheet1.xml']).match(/<row /g) ?? []).length;

    beforeAll(async () => {
      id = (
        await suite.t.db.query<{ id: string }>("SELECT id FROM invoices WHERE org_id = 'org-demo' AND billing_cycle = $1 AND type = 'post_payment'", [cycle])
      ).rows[0].id;
    });

    it("names a pool line's pool where its ICCID is empty, and counts its volumes in MB as the SIM lines", async () => {
      const pool = (await suite.t.db.query<{ id: string; name: string }>("SELECT id, name FROM shared_pools WHERE org_id = 'org-demo' ORDER BY id LIMIT 1"))
        .rows[0];
      // 50 GB and 1 KB used, 1.5 MB over.
      await suite.t.db.query(
        `INSERT INTO invoice_lines (org_id, invoice_id, pool_id, iccid, sku, bundle_quantity, bundle_price, usage_kb, overage_kb, overage_amount, amount)
         VALUES ('org-demo', $1, $2, '', 'POOL-T', 0, 0, 52428801, 1536, 0.03, 0.03)`,
        [id, pool.id],
      );
      const rows = (await download(suite.admin)).body
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n');
      const name = /[",\r\n]/.test(pool.name) ? `"${pool.name.replace(/"/g, '""')}"` : pool.name;
      expect(rows).toContain(`,${name},POOL-T,0,0,51200.001,1.5,0.03,0.03`);
      // No line is left without a name: a SIM line has its ICCID, a pool line its pool.
      for (const row of rows.slice(1)) expect(row.startsWith(','), row).toBe(row.includes('POOL-T') || row.startsWith(`,${name},`));
    });

    it(`answers the file itself up to ${DETAILS_DIRECT_MAX_LINES} lines, as CSV or XLSX`, async () => {
      await addLines(DETAILS_DIRECT_MAX_LINES - (await linesOf()), 1);
      expect(await linesOf()).toBe(DETAILS_DIRECT_MAX_LINES);
      const csv = await download(suite.admin);
      expect(csv.statusCode).toBe(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      expect(csv.headers['content-disposition']).toMatch(/-details\.csv"$/);
      const rows = csv.body
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n');
      expect(rows[0]).toBe('ICCID,Pool,SKU,Bundles,Bundle price,Usage (MB),Overage (MB),Overage amount,Amount');
      expect(rows.length).toBe(DETAILS_DIRECT_MAX_LINES + 1);
      // 1 KB is 0.0009765625 MB, written to four decimals.
      expect(rows.find((r) => r.startsWith('8949099000000000001,'))).toBe('8949099000000000001,,SKU-T,1,0,0.001,0,0,0.05');
      // Every KB stays apart: round(MB × 1024) is the line's KB again.
      for (let kb = 1; kb <= 1200; kb++) {
        const row = rows.find((r) => r.startsWith(`8949099${String(kb).padStart(12, '0')},`))!;
        expect(Math.round(Number(row.split(',')[5]) * 1024), row).toBe(kb);
      }
      const xlsx = await download(suite.admin, 'xlsx');
      expect(xlsx.statusCode).toBe(200);
      expect(xlsx.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      expect(xlsxRows(xlsx.rawPayload)).toBe(DETAILS_DIRECT_MAX_LINES + 1);
      expect(xlsxHeader(xlsx.rawPayload)).toEqual([
        'ICCID',
        'Pool',
        'SKU',
        'Bundles',
        'Bundle price',
        'Usage (MB)',
        'Overage (MB)',
        'Overage amount',
        'Amount',
      ]);
    });

    it("heads the file in the requester's language, as the invoice page names the columns, the volumes' unit said", async () => {
      const zh = await download(suite.admin, 'csv', 'zh-CN');
      expect(zh.body.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe('ICCID,共享池,SKU,套餐数,套餐价格,用量 (MB),超额用量 (MB),超额金额,金额');
      expect(xlsxHeader((await download(suite.admin, 'xlsx', 'es-ES')).rawPayload)).toEqual([
        'ICCID',
        'Bolsa',
        'SKU',
        'Paquetes',
        'Precio del paquete',
        'Consumo (MB)',
        'Exceso (MB)',
        'Importe del exceso',
        'Importe',
      ]);
      for (const lang of LANGUAGES) {
        const head = (await download(suite.admin, 'csv', lang)).body.replace(/^\uFEFF/, '').split('\r\n')[0];
        const words = [
          ...['iccid'].map((f) => translate(lang, `invoiceLines.fields.${f}`)),
          ...['pool'].map((f) => translate(lang, `invoiceDetails.columns.${f}`)),
          ...['sku', 'bundleQuantity', 'bundlePrice'].map((f) => translate(lang, `invoiceLines.fields.${f}`)),
          ...['usageMb', 'overageMb'].map((f) => translate(lang, `invoiceDetails.columns.${f}`)),
          ...['overageAmount', 'amount'].map((f) => translate(lang, `invoiceLines.fields.${f}`)),
        ];
        expect(head).toBe(words.join(','));
        // Each language has its own words for the file's columns (English only where the word is the same).
        if (lang !== 'en-US') expect(translate(lang, 'invoiceDetails.columns.usageMb')).not.toBe(translate('en-US', 'invoiceDetails.columns.usageMb'));
      }
    });

    it('above the threshold answers 202 with a task the task center shows and whose XLSX it offers', async () => {
      await addLines(1, DETAILS_DIRECT_MAX_LINES + 1);
      const res = await download(suite.admin, 'xlsx', 'zh-TW');
      expect(res.statusCode).toBe(202);
      const { taskId, quantity } = res.json().data as { taskId: string; quantity: number };
      expect(quantity).toBe(DETAILS_DIRECT_MAX_LINES + 1);
      expect((await task(taskId)).kind).toBe('invoice_export');
      await runJobs();
      const listed = (await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/job/rest/job/my/${taskId}` })).json().data;
      expect(listed).toMatchObject({ status: 'done', hasReport: true, task: 'invoice_export' });
      const token = await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/job/rest/job/my/oneTimeToken?id=${taskId}` });
      const file = await suite.t.app.inject({ method: 'GET', url: token.json().data.url });
      expect(file.headers['content-disposition']).toMatch(/-details\.xlsx"/);
      expect(xlsxRows(file.rawPayload)).toBe(DETAILS_DIRECT_MAX_LINES + 2);
      // The task writes the header in the language of the request that queued it.
      expect(xlsxHeader(file.rawPayload)).toEqual(['ICCID', '共享池', 'SKU', '方案數', '方案價格', '用量 (MB)', '超額用量 (MB)', '超額金額', '金額']);
      // The CSV as well, by default.
      const csvTask = (await download(suite.admin)).json().data.taskId as string;
      await runJobs();
      const csvToken = await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/job/rest/job/my/oneTimeToken?id=${csvTask}` });
      const csv = await suite.t.app.inject({ method: 'GET', url: csvToken.json().data.url });
      expect(
        csv.body
          .replace(/^\uFEFF/, '')
          .trim()
          .split('\r\n').length,
      ).toBe(DETAILS_DIRECT_MAX_LINES + 2);
    });

    it('refuses a format it does not make, a user and another organisation', async () => {
      const bad = await download(suite.admin, 'pdf');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().data).toMatchObject({ field: 'format' });
      expect(bad.json().status.message).toMatch(/^Format\b/);
      expect((await download(suite.admin, 'pdf', 'zh-CN')).json().status.message).toMatch(/^格式/);
      expect((await download(suite.user)).statusCode).toBe(403);
      expect((await download(suite.other)).statusCode).toBe(404);
    });
  });
});

describe('the XLSX limit of the details download', () => {
  it("is a sheet's rows less the header", () => {
    expect(XLSX_MAX_DATA_LINES).toBe(2 ** 20 - 1);
  });

  it('lets XLSX through up to the limit and CSV at any size', () => {
    expect(() => checkDetailsSize(XLSX_MAX_DATA_LINES, 'xlsx', 'en-US')).not.toThrow();
    expect(() => checkDetailsSize(XLSX_MAX_DATA_LINES + 1, 'csv', 'en-US')).not.toThrow();
    expect(() => checkDetailsSize(5_000_000, 'csv', 'en-US')).not.toThrow();
  });

  it.each(LANGUAGES)('refuses XLSX one line above it, naming the format and the limit and offering CSV (%s)', (lang) => {
    let err: unknown;
    try {
      checkDetailsSize(XLSX_MAX_DATA_LINES + 1, 'xlsx', lang);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    const { statusCode, params } = err as ApiError;
    expect(statusCode).toBe(400);
    expect(params).toMatchObject({
      field: 'format',
      ruleKey: 'xlsxLines',
      limit: XLSX_MAX_DATA_LINES.toLocaleString(lang),
      lines: (XLSX_MAX_DATA_LINES + 1).toLocaleString(lang),
    });
    // The words the error handler puts after the field's name.
    const words = translate(lang, 'rules.xlsxLines', params);
    expect(words).toContain('XLSX');
    expect(words).toContain('CSV');
    expect(words).toContain(XLSX_MAX_DATA_LINES.toLocaleString(lang));
    expect(words).not.toBe(lang === 'en-US' ? '' : translate('en-US', 'rules.xlsxLines', params));
  });
});

/**
 * A CSV export whose cells the database makes (COPY on PostgreSQL, one line per row through the cursor on PGlite) is
 * byte for byte the file the JavaScript writer makes of the same rows: quotes, commas, line breaks, formula prefixes,
 * empty texts and lists, labels in the requester's language, sub-millisecond times. SIMs, bundle orders and CDRs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportJob, type ExportKind } from '../../server/job/export-jobs.js';
import { filesIn } from '../../server/job/storage.js';
import type { TaskRow } from '../../server/job/worker.js';
import { DB_KINDS, signedInSuite } from '../helper.js';

const TRICKY = ['say "hi", then\nleave', '=SUM(A1)', '+49 line', '-minus', '@home', 'carriage\rreturn', '', 'plain', '中文, 名字', "it's"];

describe.each(DB_KINDS)('export paths on %s', (kind) => {
  const suite = signedInSuite(kind);
  const store = filesIn(fs.mkdtempSync(path.join(os.tmpdir(), 'export-paths-')));
  beforeAll(async () => {
    const ids = (await suite.t.db.query<{ id: string }>("SELECT id FROM sims WHERE org_id = 'org-demo' ORDER BY id LIMIT $1", [TRICKY.length])).rows.map(
      (r) => r.id,
    );
    for (const [i, id] of ids.entries()) {
      await suite.t.db.query(
        "UPDATE sims SET device_name = $2, tags = $3, activated_at = timestamptz '2026-03-01 10:00:00.123456+00' + make_interval(secs => $4) WHERE id = $1",
        [id, TRICKY[i], i % 2 ? [TRICKY[i].slice(0, 10), 'b,"c'] : [], i / 7],
      );
    }
  });

  const run = async (exportKind: ExportKind, query: Record<string, unknown>, cells: 'database' | 'javascript', lang: string) => {
    const task = {
      id: `paths-${cells}-${exportKind}-${lang}`,
      org_id: 'org-demo',
      account_id: 'acc-admin',
      kind: exportKind,
      quantity: 1000,
      attempts: 1,
      payload: { query, format: 'csv', lang },
    } as unknown as TaskRow;
    const out = await exportJob(exportKind, { cells })({ db: suite.t.db, store, task, progress: async () => undefined });
    return { text: fs.readFileSync(store.draft(out.file!.key), 'utf8'), rows: out.result.rows as number };
  };

  const to = new Date().toISOString();
  const from = new Date(Date.now() - 7 * 86_400_000).toISOString();
  it.each([
    ['sim_export', {}, 'en-US'],
    ['sim_export', { sort: 'activatedAt', order: 'desc' }, 'zh-CN'],
    ['bundle_export', {}, 'es-ES'],
    ['cdr_export', { startAtFrom: from, startAtTo: to }, 'zh-TW'],
  ] as const)('%s %o in %s: the database makes the same file as JavaScript', async (exportKind, query, lang) => {
    const byDb = await run(exportKind, query, 'database', lang);
    const byJs = await run(exportKind, query, 'javascript', lang);
    expect(byJs.rows).toBeGreaterThan(0);
    expect(byDb.rows).toBe(byJs.rows);
    expect(byDb.text).toBe(byJs.text);
    if (exportKind === 'sim_export') {
      // The tricky values are there, written as a spreadsheet needs them.
      expect(byDb.text).toContain('"say ""hi"", then\nleave"');
      expect(byDb.text).toContain("'=SUM(A1)");
      expect(byDb.text).toContain("'@home");
    }
  });
});

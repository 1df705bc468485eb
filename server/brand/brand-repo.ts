/** The SQL of branding (SPEC.md section 1). */
import type { Queryable } from '../db/db.js';

/** The brand of a host name, else the default brand; undefined when there is neither. */
export async function brandOfHost(q: Queryable, host: string) {
  return (
    await q.query<{ partner_code: string; variant: string; reports_enabled: boolean; theme: unknown }>(
      'SELECT partner_code, variant, reports_enabled, theme FROM brands WHERE host = $1 OR is_default ORDER BY host = $1 DESC NULLS LAST LIMIT 1',
      [host],
    )
  ).rows[0];
}

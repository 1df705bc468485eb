/**
 * SIM actions of SPEC.md section 7 (POST /sim/active, /sim/suspend, /sim/resume, /device/reset): a list of ICCIDs in,
 * SIM by SIM what happened out, decided by server/domain/lifecycle.ts on rows locked for the request, so two requests
 * for one SIM at once are one after the other and the second sees the first's result. A SIM whose operation slot is
 * taken (an activation the network is still carrying out) is refused. Every change is a sim_events row, and each
 * request an audit row. Carrying activations out through the network adapter, as tasks, comes with issue 5's network.
 */
import { CODES } from '../../common/errors.js';
import { translate } from '../../common/i18n.js';
import { LIMITS, type Language } from '../../common/limits.js';
import type { Queryable } from '../db/db.js';
import { decide, type Refusal, type SimAction, type SimFacts } from '../domain/lifecycle.js';
import { ApiError } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, type RouteDef } from '../http/route.js';

type PersonAction = Extract<SimAction, 'activate' | 'suspend' | 'resume' | 'reset'>;

interface SimRow extends SimFacts {
  id: string;
  iccid: string;
}

/** The facts of the organisation's SIMs among iccids, locked for this transaction. */
async function lockSims(q: Queryable, orgId: string, iccids: string[]): Promise<Map<string, SimRow>> {
  const rows = (
    await q.query<SimRow>(
      `SELECT s.id, s.iccid, s.status, s.sub_status AS "subStatus", s.technology, s.operation,
              (s.test_data_status = 'in_test') AS "inTestPeriod",
              EXISTS (SELECT 1 FROM bundle_orders b WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.status IN ('PENDING', 'IN_USE')) AS "hasAvailableBundle"
         FROM sims s WHERE s.org_id = $1 AND s.iccid = ANY($2::text[]) ORDER BY s.id FOR UPDATE OF s`,
      [orgId, iccids],
    )
  ).rows;
  return new Map(rows.map((r) => [r.iccid, r]));
}

/** Write a decided change: the SIM's state, its event, nothing else. */
async function applyChange(q: Queryable, orgId: string, sim: SimRow, action: SimAction, to: { status: string; subStatus: string }, who: { accountId: string | null; source: string }): Promise<void> {
  await q.query(
    `UPDATE sims SET status = $3, sub_status = $4, updated_at = now(),
            activated_at = CASE WHEN $5 = 'activate' THEN now() ELSE activated_at END
      WHERE org_id = $1 AND id = $2`,
    [orgId, sim.id, to.status, to.subStatus, action],
  );
  await q.query(
    `INSERT INTO sim_events (org_id, sim_id, iccid, type, from_status, to_status, detail, account_id, source)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [orgId, sim.id, sim.iccid, action === 'reset' ? 'session' : 'status_change', sim.status, to.status, JSON.stringify({ action, fromSub: sim.subStatus, toSub: to.subStatus }), who.accountId, who.source],
  );
}

export interface SimResult {
  iccid: string;
  ok: boolean;
  status?: string;
  subStatus?: string;
  reason?: string;
  message?: string;
}

const refused = (lang: Language, iccid: string, reason: Refusal | 'notExist'): SimResult => ({ iccid, ok: false, reason, message: translate(lang, `errors.sim.${reason}`) });

const resultSchema = {
  type: 'object',
  properties: {
    results: {
      type: 'array',
      items: { type: 'object', properties: { iccid: { type: 'string' }, ok: { type: 'boolean' }, status: { type: 'string' }, subStatus: { type: 'string' }, reason: { type: 'string' }, message: { type: 'string' } } },
    },
    accepted: { type: 'integer' },
    refused: { type: 'integer' },
  },
};

function actionRoute(action: PersonAction, path: string): RouteDef {
  return {
    service: 'main',
    method: 'POST',
    path,
    permission: { action, subject: 'sim' },
    schema: {
      // The count limits are checked in the handler, with SPEC.md's own words ("select at least one SIM", "more than 1000").
      body: { type: 'object', required: ['iccids'], additionalProperties: false, properties: { iccids: { type: 'array', items: { type: 'string', pattern: '^89[0-9]{17,18}$' } } } },
      response: resultSchema,
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const iccids = [...new Set((req.body as { iccids: string[] }).iccids)];
      if (iccids.length === 0) throw new ApiError(400, CODES.validation, {}, 'errors.sim.noneSelected');
      if (iccids.length > LIMITS.activationBatch) throw new ApiError(400, CODES.validation, { max: LIMITS.activationBatch }, 'errors.sim.tooMany');
      return req.server.db.tx(async (q) => {
        const sims = await lockSims(q, auth.orgId, iccids);
        const results: SimResult[] = [];
        for (const iccid of iccids) {
          const sim = sims.get(iccid);
          if (!sim) {
            results.push(refused(req.lang, iccid, 'notExist'));
            continue;
          }
          const d = decide(sim, action);
          if (!d.ok) {
            results.push(refused(req.lang, iccid, d.refusal));
            continue;
          }
          await applyChange(q, auth.orgId, sim, action, d, { accountId: auth.accountId, source: 'console' });
          results.push({ iccid, ok: true, status: d.status, subStatus: d.subStatus });
        }
        const accepted = results.filter((r) => r.ok).length;
        await audit(q, req, { action, entity: 'sim', entityId: iccids.length === 1 ? iccids[0] : null, after: { accepted: results.filter((r) => r.ok).map((r) => r.iccid), refused: results.filter((r) => !r.ok).map((r) => ({ iccid: r.iccid, reason: r.reason })) } });
        return { results, accepted, refused: results.length - accepted };
      });
    },
  };
}

export const simActionRoutes = defineRoutes([
  actionRoute('activate', '/sim/active'),
  actionRoute('suspend', '/sim/suspend'),
  actionRoute('resume', '/sim/resume'),
  actionRoute('reset', '/device/reset'),
]);

/**
 * SIM actions of SPEC.md section 7 (POST /sim/active, /sim/suspend, /sim/resume, /device/reset): a list of ICCIDs in,
 * SIM by SIM what happened out, decided by server/domain/lifecycle.ts on rows locked for the request, so two requests
 * for one SIM at once are one after the other and the second finds the first's operation slot taken. Accepted SIMs
 * take their slot (one operation at a time) while the network carries the action out: an activation becomes one
 * sim_activate task whose job asks the network adapter (server/network/activation.ts), and the SIMs become active
 * when the network confirms; suspend, resume and reset are asked of the adapter at once and written for the SIMs it
 * accepted. Every change is a sim_events row, and each request an audit row.
 */
import { CODES } from '../../common/errors.js';
import { translate } from '../../common/i18n.js';
import { LIMITS, type Language } from '../../common/limits.js';
import type { Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { decide, type Refusal, type SimAction, type SimFacts } from '../domain/lifecycle.js';
import { ApiError } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { publishLive } from '../live/hub.js';
import type { CommandAnswer, SimRef } from '../network/adapter.js';

type PersonAction = Extract<SimAction, 'activate' | 'suspend' | 'resume' | 'reset'>;

interface SimRow extends SimFacts {
  id: string;
  iccid: string;
  imsi: string | null;
  msisdn: string | null;
}

/** The facts of the organisation's SIMs among iccids, locked for this transaction. */
async function lockSims(q: Queryable, orgId: string, iccids: string[]): Promise<Map<string, SimRow>> {
  // Lock first, then read the facts in a statement of its own: under READ COMMITTED a statement that waited for a
  // lock re-reads the locked row but sees other tables as they were when it began, so a slot's task committed by the
  // request it waited for would look absent and the slot free.
  await q.query('SELECT s.id FROM sims s WHERE s.org_id = $1 AND s.iccid = ANY($2::text[]) ORDER BY s.id FOR UPDATE', [orgId, iccids]);
  return simFacts(q, orgId, iccids);
}

/** The facts of the organisation's SIMs among iccids, as the lifecycle rules read them. */
async function simFacts(q: Queryable, orgId: string, iccids: string[]): Promise<Map<string, SimRow>> {
  const rows = (
    await q.query<SimRow>(
      `SELECT s.id, s.iccid, s.imsi, s.msisdn, s.status, s.sub_status AS "subStatus", s.technology,
              -- A slot whose task has ended, or a task-less one left by a request that died half-way, is free again.
              CASE WHEN s.operation_task_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = s.operation_task_id AND t.status = 'processing') THEN NULL
                   WHEN s.operation_task_id IS NULL AND s.operation_started_at < now() - interval '5 minutes' THEN NULL
                   ELSE s.operation END AS operation,
              (s.test_data_status = 'in_test') AS "inTestPeriod",
              EXISTS (SELECT 1 FROM bundle_orders b WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.status IN ('PENDING', 'IN_USE')) AS "hasAvailableBundle"
         FROM sims s WHERE s.org_id = $1 AND s.iccid = ANY($2::text[]) ORDER BY s.id`,
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
  /** The activation task carrying an accepted activation out. */
  taskId?: string;
  reason?: string;
  message?: string;
}

const refused = (lang: Language, iccid: string, reason: Refusal | 'notExist' | 'inProcess'): SimResult => ({ iccid, ok: false, reason, message: translate(lang, `errors.sim.${reason}`) });

const resultSchema = {
  type: 'object',
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: { iccid: { type: 'string' }, ok: { type: 'boolean' }, status: { type: 'string' }, subStatus: { type: 'string' }, taskId: { type: 'string' }, reason: { type: 'string' }, message: { type: 'string' } },
      },
    },
    accepted: { type: 'integer' },
    refused: { type: 'integer' },
    /** The activation task of the accepted SIMs (activation only, when one was accepted). */
    taskId: { type: 'string' },
    referenceId: { type: 'string' },
  },
};

const refOf = (orgId: string, s: SimRow): SimRef => ({ orgId, simId: s.id, iccid: s.iccid, imsi: s.imsi, msisdn: s.msisdn });

/** The ICCIDs of an action's body: the schema bounds what is parsed; the count rules are checked on the distinct ones. */
const ICCIDS_BODY = { type: 'object', required: ['iccids'], additionalProperties: false, properties: { iccids: { type: 'array', maxItems: 10 * LIMITS.activationBatch, items: { type: 'string', pattern: '^89[0-9]{17,18}$' } } } };

function distinctIccids(body: unknown): string[] {
  const iccids = [...new Set((body as { iccids: string[] }).iccids)];
  if (iccids.length === 0) throw new ApiError(400, CODES.validation, {}, 'errors.sim.noneSelected');
  if (iccids.length > LIMITS.activationBatch) throw new ApiError(400, CODES.validation, { max: LIMITS.activationBatch }, 'errors.sim.tooMany');
  return iccids;
}

function actionRoute(action: PersonAction, path: string): RouteDef {
  return {
    service: 'main',
    method: 'POST',
    path,
    permission: { action, subject: 'sim' },
    schema: {
      // The count limits are checked in the handler, with SPEC.md's own words ("select at least one SIM", "more than 1000"),
      // on the distinct ICCIDs; the schema only bounds what is parsed at all.
      body: ICCIDS_BODY,
      response: resultSchema,
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const iccids = distinctIccids(req.body);
      const { db, network } = req.server;
      // Decide on the locked rows and take the slot of each accepted SIM, so a second request waits its turn.
      const first = await db.tx(async (q) => {
        const sims = await lockSims(q, auth.orgId, iccids);
        const results = new Map<string, SimResult>();
        const accepted: SimRow[] = [];
        for (const iccid of iccids) {
          const sim = sims.get(iccid);
          const d = sim ? decide(sim, action) : null;
          if (!sim) results.set(iccid, refused(req.lang, iccid, 'notExist'));
          else if (!d!.ok) results.set(iccid, refused(req.lang, iccid, d!.refusal));
          else accepted.push(sim);
        }
        const taskId = action === 'activate' && accepted.length ? newId() : null;
        const referenceId = taskId ? `ACT-${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${newId(6).toUpperCase()}` : null;
        if (accepted.length) {
          await q.query(
            'UPDATE sims SET operation = $3, operation_task_id = $4, operation_started_at = now(), updated_at = now() WHERE org_id = $1 AND id = ANY($2::text[])',
            [auth.orgId, accepted.map((s) => s.id), action, taskId],
          );
        }
        if (taskId) {
          const remark = accepted.length === 1 ? accepted[0].iccid : `${accepted[0].iccid} … ${accepted[accepted.length - 1].iccid}`;
          await q.query(
            `INSERT INTO tasks (org_id, id, account_id, reference_id, kind, quantity, remark, payload) VALUES ($1, $2, $3, $4, 'sim_activate', $5, $6, $7)`,
            [auth.orgId, taskId, auth.accountId, referenceId, accepted.length, remark, JSON.stringify({ iccids: accepted.map((s) => s.iccid), lang: req.lang })],
          );
          await publishLive(q, { type: 'task', orgId: auth.orgId, accountId: auth.accountId, data: { id: taskId, status: 'processing', progress: 0 } });
          for (const s of accepted) results.set(s.iccid, { iccid: s.iccid, ok: true, taskId });
          await audit(q, req, { action, entity: 'sim', entityId: iccids.length === 1 ? iccids[0] : null, after: { taskId, accepted: accepted.map((s) => s.iccid), refused: refusals(results) } });
        }
        return { results, accepted, taskId, referenceId };
      });
      const { results, accepted } = first;
      if (action !== 'activate' && accepted.length) {
        // The network carries it out, outside the transaction (the slots keep other requests out meanwhile).
        let answers: CommandAnswer[] = [];
        try {
          answers = await network[action](accepted.map((s) => refOf(auth.orgId, s)));
        } catch (err) {
          req.log.error({ err }, `network ${action} failed`);
        }
        const ok = new Set(answers.filter((a) => a.ok).map((a) => a.iccid));
        await db.tx(async (q) => {
          const now = await lockSims(q, auth.orgId, accepted.map((s) => s.iccid));
          for (const prior of accepted) {
            const sim = now.get(prior.iccid);
            const d = sim && ok.has(prior.iccid) ? decide({ ...sim, operation: null }, action) : null;
            await q.query('UPDATE sims SET operation = NULL, operation_task_id = NULL, operation_started_at = NULL WHERE org_id = $1 AND id = $2 AND operation = $3', [auth.orgId, prior.id, action]);
            if (!sim || !d?.ok) {
              results.set(prior.iccid, refused(req.lang, prior.iccid, 'inProcess'));
              continue;
            }
            await applyChange(q, auth.orgId, sim, action, d, { accountId: auth.accountId, source: 'console' });
            results.set(prior.iccid, { iccid: prior.iccid, ok: true, status: d.status, subStatus: d.subStatus });
          }
          await audit(q, req, { action, entity: 'sim', entityId: iccids.length === 1 ? iccids[0] : null, after: { accepted: [...results.values()].filter((r) => r.ok).map((r) => r.iccid), refused: refusals(results) } });
        });
      } else if (!first.taskId) {
        await db.tx((q) => audit(q, req, { action, entity: 'sim', entityId: iccids.length === 1 ? iccids[0] : null, after: { accepted: [], refused: refusals(results) } }));
      }
      const list = iccids.map((i) => results.get(i)!);
      const n = list.filter((r) => r.ok).length;
      return { results: list, accepted: n, refused: list.length - n, ...(first.taskId ? { taskId: first.taskId, referenceId: first.referenceId } : {}) };
    },
  };
}

const refusals = (results: Map<string, SimResult>) => [...results.values()].filter((r) => !r.ok).map((r) => ({ iccid: r.iccid, reason: r.reason }));

export const simActionRoutes = defineRoutes([
  actionRoute('activate', '/sim/active'),
  {
    // POST /sim/preActiveValidated (issue 19; docs/decisions.md "The last bundle calls (issue 19)"): would these SIMs be
    // activated? The activate rules of SPEC.md section 4 asked SIM by SIM without taking anything, so the activate
    // dialog can say which will be refused and why before anyone confirms. Nothing is written.
    service: 'main',
    method: 'POST',
    path: '/sim/preActiveValidated',
    permission: { action: 'activate', subject: 'sim' },
    schema: { body: ICCIDS_BODY, response: resultSchema },
    handler: async (req) => {
      const auth = req.requireAuth();
      const iccids = distinctIccids(req.body);
      const sims = await simFacts(req.server.db, auth.orgId, iccids);
      const list = iccids.map((iccid): SimResult => {
        const sim = sims.get(iccid);
        if (!sim) return refused(req.lang, iccid, 'notExist');
        const d = decide(sim, 'activate');
        return d.ok ? { iccid, ok: true, status: sim.status, subStatus: sim.subStatus } : refused(req.lang, iccid, d.refusal);
      });
      const n = list.filter((r) => r.ok).length;
      return { results: list, accepted: n, refused: list.length - n };
    },
  },
  actionRoute('suspend', '/sim/suspend'),
  actionRoute('resume', '/sim/resume'),
  actionRoute('reset', '/device/reset'),
]);

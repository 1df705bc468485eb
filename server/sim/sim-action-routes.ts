/**
 * SIM actions of SPEC.md section 7 (POST /sim/active, /sim/suspend, /sim/resume, /device/reset): a list of ICCIDs in,
 * SIM by SIM what happened out, decided by server/domain/lifecycle.ts on rows locked for the request, so two requests
 * for one SIM at once are one after the other and the second finds the first's operation slot taken. Accepted SIMs
 * take their slot (one operation at a time) while the network carries the action out: an activation becomes one
 * sim_activate task whose job asks the network adapter (server/sim/activation.ts), and the SIMs become active
 * when the network confirms; suspend, resume and reset are asked of the adapter at once and written for the SIMs it
 * accepted. Every change is a sim_events row, and each request an audit row.
 */
import { CODES } from '../../common/errors.js';
import { ICCID_PATTERN } from '../../common/iccid.js';
import { translate } from '../../common/i18n.js';
import { LIMITS, type Language } from '../../common/limits.js';
import { newId } from '../db/ids.js';
import { decide, type Refusal, type SimAction } from '../domain/lifecycle.js';
import { ApiError } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { arrayOf, obj, outObj, subjectRoutes, typed } from '../http/shapes.js';
import { publishLive } from '../live/hub.js';
import type { CommandAnswer, SimRef } from '../network/adapter.js';
import { applyChange, insertActivationTask, lockSims, releaseSlot, simFacts, takeSlots, type SimRow } from './sim-repo.js';
import { taskReference } from '../job/task-reference.js';

type PersonAction = Extract<SimAction, 'activate' | 'suspend' | 'resume' | 'reset'>;

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

const refused = (lang: Language, iccid: string, reason: Refusal | 'notExist' | 'inProcess'): SimResult => ({
  iccid,
  ok: false,
  reason,
  message: translate(lang, `errors.sim.${reason}`),
});

/**
 * The answer of a request on a list of SIMs (an action, an SMS): SIM by SIM what happened (these fields), how many
 * were accepted and refused, and whatever else the request tells.
 */
export function batchAnswer(result: Parameters<typeof typed>[0], extra: Record<string, object> = {}) {
  return outObj({ results: arrayOf(typed(result)), accepted: { type: 'integer' }, refused: { type: 'integer' }, ...extra });
}

const resultSchema = batchAnswer(
  { iccid: 'string', ok: 'boolean', status: 'string', subStatus: 'string', taskId: 'string', reason: 'string', message: 'string' },
  // The activation task of the accepted SIMs (activation only, when one was accepted).
  typed({ taskId: 'string', referenceId: 'string' }).properties,
);

const refOf = (orgId: string, s: SimRow): SimRef => ({ orgId, simId: s.id, iccid: s.iccid, imsi: s.imsi, msisdn: s.msisdn });

/** The ICCIDs of an action's body: the schema bounds what is parsed; the count rules are checked on the distinct ones. */
const ICCIDS_BODY = obj({ iccids: { type: 'array', maxItems: 10 * LIMITS.activationBatch, items: { type: 'string', pattern: ICCID_PATTERN } } }, ['iccids']);

function distinctIccids(body: unknown): string[] {
  const iccids = [...new Set((body as { iccids: string[] }).iccids)];
  if (iccids.length === 0) throw new ApiError(400, CODES.validation, {}, 'errors.sim.noneSelected');
  if (iccids.length > LIMITS.activationBatch) throw new ApiError(400, CODES.validation, { max: LIMITS.activationBatch }, 'errors.sim.tooMany');
  return iccids;
}

/** The routes of SIM actions (the main service, the `sim` subject). */
const route = subjectRoutes('main', 'sim');

function actionRoute(action: PersonAction, path: string): RouteDef {
  return route('POST', path, action, {
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
        const referenceId = taskId ? taskReference('sim_activate', new Date()) : null;
        if (accepted.length) {
          await takeSlots(
            q,
            auth.orgId,
            accepted.map((s) => s.id),
            action,
            taskId,
          );
        }
        if (taskId) {
          const remark = accepted.length === 1 ? accepted[0].iccid : `${accepted[0].iccid} … ${accepted[accepted.length - 1].iccid}`;
          await insertActivationTask(q, {
            orgId: auth.orgId,
            id: taskId,
            accountId: auth.accountId,
            referenceId,
            remark,
            iccids: accepted.map((s) => s.iccid),
            lang: req.lang,
          });
          await publishLive(q, { type: 'task', orgId: auth.orgId, accountId: auth.accountId, data: { id: taskId, status: 'processing', progress: 0 } });
          for (const s of accepted) results.set(s.iccid, { iccid: s.iccid, ok: true, taskId });
          await audit(q, req, {
            action,
            entity: 'sim',
            entityId: iccids.length === 1 ? iccids[0] : null,
            after: { taskId, accepted: accepted.map((s) => s.iccid), refused: refusals(results) },
          });
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
          const now = await lockSims(
            q,
            auth.orgId,
            accepted.map((s) => s.iccid),
          );
          for (const prior of accepted) {
            const sim = now.get(prior.iccid);
            const d = sim && ok.has(prior.iccid) ? decide({ ...sim, operation: null }, action) : null;
            await releaseSlot(q, auth.orgId, prior.id, action);
            if (!sim || !d?.ok) {
              results.set(prior.iccid, refused(req.lang, prior.iccid, 'inProcess'));
              continue;
            }
            await applyChange(q, auth.orgId, sim, action, d, { accountId: auth.accountId, source: 'console' });
            results.set(prior.iccid, { iccid: prior.iccid, ok: true, status: d.status, subStatus: d.subStatus });
          }
          await audit(q, req, {
            action,
            entity: 'sim',
            entityId: iccids.length === 1 ? iccids[0] : null,
            after: { accepted: [...results.values()].filter((r) => r.ok).map((r) => r.iccid), refused: refusals(results) },
          });
        });
      } else if (!first.taskId) {
        await db.tx((q) =>
          audit(q, req, { action, entity: 'sim', entityId: iccids.length === 1 ? iccids[0] : null, after: { accepted: [], refused: refusals(results) } }),
        );
      }
      const list = iccids.map((i) => results.get(i)!);
      const n = list.filter((r) => r.ok).length;
      return { results: list, accepted: n, refused: list.length - n, ...(first.taskId ? { taskId: first.taskId, referenceId: first.referenceId } : {}) };
    },
  });
}

const refusals = (results: Map<string, SimResult>) => [...results.values()].filter((r) => !r.ok).map((r) => ({ iccid: r.iccid, reason: r.reason }));

export const simActionRoutes = defineRoutes([
  actionRoute('activate', '/sim/active'),
  // POST /sim/preActiveValidated (docs/decisions.md "The last bundle calls"): would these SIMs be
  // activated? The activate rules of SPEC.md section 4 asked SIM by SIM without taking anything, so the activate
  // dialog can say which will be refused and why before anyone confirms. Nothing is written.
  route('POST', '/sim/preActiveValidated', 'activate', {
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
  }),
  actionRoute('suspend', '/sim/suspend'),
  actionRoute('resume', '/sim/resume'),
  actionRoute('reset', '/device/reset'),
]);

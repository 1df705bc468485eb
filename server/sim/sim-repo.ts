/**
 * The SQL of SIM actions and SIM information (SPEC.md sections 4 and 7): the lifecycle facts of SIMs read on locked
 * rows, the operation slot a SIM holds while the network carries an action out, the activation task, the change and
 * its event, and the edits of a SIM's device name, notes and tags. Every query names the organisation first.
 */
import { LIMITS } from '../../common/limits.js';
import { RESOURCES } from '../../common/resource-registry.js';
import type { Queryable } from '../db/db.js';
import { selectOf, snake } from '../schema/schema-repo.js';
import type { DiagnoseFacts } from '../domain/diagnose.js';
import type { SimAction, SimFacts } from '../domain/lifecycle.js';
import { insertTask } from '../job/task-repo.js';

/** A SIM as an action decides on it. */
export interface SimRow extends SimFacts {
  id: string;
  iccid: string;
  imsi: string | null;
  msisdn: string | null;
}

/** The facts of the organisation's SIMs among iccids, locked for this transaction. */
export async function lockSims(q: Queryable, orgId: string, iccids: string[]): Promise<Map<string, SimRow>> {
  // Lock first, then read the facts in a statement of its own: under READ COMMITTED a statement that waited for a
  // lock re-reads the locked row but sees other tables as they were when it began, so a slot's task committed by the
  // request it waited for would look absent and the slot free.
  await q.query('SELECT s.id FROM sims s WHERE s.org_id = $1 AND s.iccid = ANY($2::text[]) ORDER BY s.id FOR UPDATE', [orgId, iccids]);
  return simFacts(q, orgId, iccids);
}

/** The facts of the organisation's SIMs among iccids, as the lifecycle rules read them. */
export async function simFacts(q: Queryable, orgId: string, iccids: string[]): Promise<Map<string, SimRow>> {
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
export async function applyChange(
  q: Queryable,
  orgId: string,
  sim: SimRow,
  action: SimAction,
  to: { status: string; subStatus: string },
  who: { accountId: string | null; source: string },
): Promise<void> {
  await q.query(
    `UPDATE sims SET status = $3, sub_status = $4, updated_at = now(),
            activated_at = CASE WHEN $5 = 'activate' THEN now() ELSE activated_at END
      WHERE org_id = $1 AND id = $2`,
    [orgId, sim.id, to.status, to.subStatus, action],
  );
  await q.query(
    `INSERT INTO sim_events (org_id, sim_id, iccid, type, from_status, to_status, detail, account_id, source)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      orgId,
      sim.id,
      sim.iccid,
      action === 'reset' ? 'session' : 'status_change',
      sim.status,
      to.status,
      JSON.stringify({ action, fromSub: sim.subStatus, toSub: to.subStatus }),
      who.accountId,
      who.source,
    ],
  );
}

/** Give the accepted SIMs the operation slot of an action (and its task, for an activation). */
export async function takeSlots(q: Queryable, orgId: string, simIds: string[], action: SimAction, taskId: string | null): Promise<void> {
  await q.query(
    'UPDATE sims SET operation = $3, operation_task_id = $4, operation_started_at = now(), updated_at = now() WHERE org_id = $1 AND id = ANY($2::text[])',
    [orgId, simIds, action, taskId],
  );
}

/** Free a SIM's operation slot if the action still holds it. */
export async function releaseSlot(q: Queryable, orgId: string, simId: string, action: SimAction): Promise<void> {
  await q.query('UPDATE sims SET operation = NULL, operation_task_id = NULL, operation_started_at = NULL WHERE org_id = $1 AND id = $2 AND operation = $3', [
    orgId,
    simId,
    action,
  ]);
}

/** The sim_activate task whose job asks the network to activate these SIMs. */
export async function insertActivationTask(
  q: Queryable,
  t: { orgId: string; id: string; accountId: string; referenceId: string | null; remark: string; iccids: string[]; lang: string },
): Promise<void> {
  await insertTask(q, {
    orgId: t.orgId,
    id: t.id,
    accountId: t.accountId,
    referenceId: t.referenceId,
    kind: 'sim_activate',
    quantity: t.iccids.length,
    remark: t.remark,
    payload: { iccids: t.iccids, lang: t.lang },
  });
}

const sims = RESOURCES.sims;
const SIM_SELECT = selectOf(sims);

/** A SIM of the organisation as the API answers it (schemas/sims.json), by ICCID; undefined when it has none. */
export async function simRecordByIccid(q: Queryable, orgId: string, iccid: string) {
  return (await q.query(`${SIM_SELECT} WHERE t.org_id = $1 AND t.iccid = $2`, [orgId, iccid])).rows[0];
}

/** A SIM of the organisation as the API answers it, by id. */
export async function simRecord(q: Queryable, orgId: string, simId: string) {
  return (await q.query(`${SIM_SELECT} WHERE t.org_id = $1 AND t.id = $2`, [orgId, simId])).rows[0];
}

/** An editable field's value of a SIM by ICCID, its row locked for the transaction; undefined when it has none. */
export async function lockSimField(q: Queryable, orgId: string, iccid: string, field: 'deviceName' | 'notes' | 'tags') {
  return (
    await q.query<{ id: string; value: unknown }>(`SELECT id, ${snake(field)} AS value FROM sims WHERE org_id = $1 AND iccid = $2 FOR UPDATE`, [orgId, iccid])
  ).rows[0];
}

/** Write an edited field and its SIM event (a tag change or an information change). */
export async function editSimField(
  q: Queryable,
  e: { orgId: string; simId: string; iccid: string; field: 'deviceName' | 'notes' | 'tags'; before: unknown; value: unknown; accountId: string },
): Promise<void> {
  await q.query(`UPDATE sims SET ${snake(e.field)} = $3, updated_at = now() WHERE org_id = $1 AND id = $2`, [e.orgId, e.simId, e.value]);
  await q.query(`INSERT INTO sim_events (org_id, sim_id, iccid, type, detail, account_id, source) VALUES ($1, $2, $3, $4, $5, $6, 'console')`, [
    e.orgId,
    e.simId,
    e.iccid,
    e.field === 'tags' ? 'tag_change' : 'info_change',
    JSON.stringify({ field: e.field, before: e.before, after: e.value }),
    e.accountId,
  ]);
}

/** The tags the organisation's SIMs carry (those starting with prefix, when given), each with how many SIMs carry it. */
export async function tagCounts(q: Queryable, orgId: string, prefix: string | null) {
  return (
    await q.query<{ tag: string; sims: number }>(
      `SELECT t AS tag, count(*)::int AS sims FROM sims s, unnest(s.tags) AS t
        WHERE s.org_id = $1 AND cardinality(s.tags) > 0 AND ($2::text IS NULL OR starts_with(t, $2)) GROUP BY t ORDER BY t LIMIT 1000`,
      [orgId, prefix],
    )
  ).rows;
}

/** The organisation holding a SIM: the caller's own or one of its direct sub-organisations; undefined otherwise. */
export async function holderOfSim(q: Queryable, orgId: string, iccid: string) {
  return (
    await q.query<{ iccid: string; code: string; name: string; current: boolean }>(
      `SELECT s.iccid, o.code, o.name, o.id = $1 AS current FROM sims s JOIN organisations o ON o.id = s.org_id
        WHERE s.iccid = $2 AND (o.id = $1 OR o.parent_id = $1)`,
      [orgId, iccid],
    )
  ).rows[0];
}

/** The networks and radios a SIM was seen on in its sessions of the last 3 months, most recent first. */
export async function cellsSeen(q: Queryable, sim: { orgId: string; id: string }) {
  return (
    await q.query(
      `SELECT detail->>'network' AS network, detail->>'rat' AS rat, min(at) AS "firstSeen", max(at) AS "lastSeen",
              count(*) FILTER (WHERE detail->>'session' IS NULL)::int AS attaches, count(*) FILTER (WHERE detail->>'session' = 'opened')::int AS sessions
         FROM sim_events WHERE org_id = $1 AND sim_id = $2 AND type = 'session' AND detail ? 'network' AND at >= now() - interval '3 months'
        GROUP BY 1, 2 ORDER BY max(at) DESC LIMIT 100`,
      [sim.orgId, sim.id],
    )
  ).rows;
}

/** What the diagnosis of a SIM reads of it, with the windows of a recent session and location; undefined for no such SIM. */
export async function diagnoseFacts(q: Queryable, orgId: string, iccid: string) {
  return (
    await q.query<
      Omit<DiagnoseFacts, 'bundles'> & {
        id: string;
        imsi: string | null;
        msisdn: string | null;
        network: string | null;
        deviceName: string | null;
        now: Date;
        sessionSince: Date;
        locationSince: Date;
      }
    >(
      `SELECT id, imsi, msisdn, network, device_name AS "deviceName", status, sub_status AS "subStatus", imei,
              last_session_at AS "lastSessionAt", location_at AS "locationAt", operation, operation_started_at AS "operationStartedAt",
              flow_control_policy AS "flowControlPolicy", now() AS now,
              now() - make_interval(months => $3) AS "sessionSince", now() - make_interval(hours => $4) AS "locationSince"
         FROM sims WHERE org_id = $1 AND iccid = $2`,
      [orgId, iccid, LIMITS.lastSessionMonths, LIMITS.locationHours],
    )
  ).rows[0];
}

/** A SIM's pending and in-use bundles as the diagnosis reads them. */
export async function diagnoseBundles(q: Queryable, orgId: string, simId: string) {
  return (
    await q.query<DiagnoseFacts['bundles'][number]>(
      `SELECT status, quota_kb::float8 AS "quotaKb", used_kb::float8 AS "usedKb", overage_policy AS "overagePolicy"
         FROM bundle_orders WHERE org_id = $1 AND sim_id = $2 AND status IN ('PENDING', 'IN_USE')`,
      [orgId, simId],
    )
  ).rows;
}

/**
 * Small calls of SPEC.md section 7 about where SIMs are and how they are labelled (issue 19; docs/decisions.md "What
 * the bundle calls answer (issue 19)"):
 *
 * - POST /device/tag: the tags the organisation's SIMs carry, each with how many SIMs carry it (for the filters and
 *   rule scopes that pick SIMs by tag), alphabetical; `prefix` narrows them to tags starting with it.
 * - GET /sim/belong_org/{iccid}: which organisation holds the SIM: the caller's own or one of its direct
 *   sub-organisations (the ones it may transfer SIMs to); any other ICCID answers 404 like a missing one.
 * - GET /sims/cells?iccid= (CDR service): the networks and radios the SIM was seen on in its sessions of the last 3
 *   months (SPEC.md section 9: last session data within 3 months), each with when first and last seen and how many
 *   attaches and sessions; the network reports no cell identities, so a cell is named by its operator and radio.
 */
import { RESOURCES } from '../../common/resource-registry.js';
import { notFound } from '../http/api-error.js';
import { fieldLabels } from '../http/labels.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { simOf, simQuery } from './sim-detail-routes.js';

const sims = RESOURCES.sims;

export const deviceRoutes: RouteDef[] = defineRoutes([
  {
    service: 'main',
    method: 'POST',
    path: '/device/tag',
    permission: { action: 'read', subject: 'sim' },
    labels: fieldLabels(sims),
    schema: {
      body: { type: 'object', additionalProperties: false, properties: { prefix: { type: 'string', minLength: 1, maxLength: 10 } } },
      response: { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { tag: { type: 'string' }, sims: { type: 'integer' } } } } } },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { prefix } = (req.body ?? {}) as { prefix?: string };
      const r = await req.server.db.query<{ tag: string; sims: number }>(
        `SELECT t AS tag, count(*)::int AS sims FROM sims s, unnest(s.tags) AS t
          WHERE s.org_id = $1 AND cardinality(s.tags) > 0 AND ($2::text IS NULL OR starts_with(t, $2)) GROUP BY t ORDER BY t LIMIT 1000`,
        [auth.orgId, prefix ?? null],
      );
      return { items: r.rows };
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/sim/belong_org/:iccid',
    permission: { action: 'read', subject: 'sim' },
    labels: fieldLabels(sims),
    schema: {
      params: { type: 'object', required: ['iccid'], additionalProperties: false, properties: { iccid: sims.properties.iccid } },
      response: { type: 'object', properties: { iccid: { type: 'string' }, orgCode: { type: 'string' }, orgName: { type: 'string' }, current: { type: 'boolean' } } },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { iccid } = req.params as { iccid: string };
      const r = await req.server.db.query<{ iccid: string; code: string; name: string; current: boolean }>(
        `SELECT s.iccid, o.code, o.name, o.id = $1 AS current FROM sims s JOIN organisations o ON o.id = s.org_id
          WHERE s.iccid = $2 AND (o.id = $1 OR o.parent_id = $1)`,
        [auth.orgId, iccid],
      );
      const row = r.rows[0];
      if (!row) throw notFound('sim', iccid);
      return { iccid: row.iccid, orgCode: row.code, orgName: row.name, current: row.current };
    },
  },
  {
    service: 'cdr',
    method: 'GET',
    path: '/sims/cells',
    permission: { action: 'read', subject: 'sim' },
    labels: fieldLabels(sims),
    schema: {
      querystring: simQuery(),
      response: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                network: { type: 'string' }, rat: { type: ['string', 'null'] }, firstSeen: { type: 'string', format: 'date-time' },
                lastSeen: { type: 'string', format: 'date-time' }, attaches: { type: 'integer' }, sessions: { type: 'integer' },
              },
            },
          },
        },
      },
    },
    handler: async (req) => {
      const sim = await simOf(req);
      const r = await req.server.db.query(
        `SELECT detail->>'network' AS network, detail->>'rat' AS rat, min(at) AS "firstSeen", max(at) AS "lastSeen",
                count(*) FILTER (WHERE detail->>'session' IS NULL)::int AS attaches, count(*) FILTER (WHERE detail->>'session' = 'opened')::int AS sessions
           FROM sim_events WHERE org_id = $1 AND sim_id = $2 AND type = 'session' AND detail ? 'network' AND at >= now() - interval '3 months'
          GROUP BY 1, 2 ORDER BY max(at) DESC LIMIT 100`,
        [sim.orgId, sim.id],
      );
      return { items: r.rows };
    },
  },
]);

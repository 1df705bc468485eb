/**
 * Small calls of SPEC.md section 7 about where SIMs are and how they are labelled (docs/decisions.md "What the
 * bundle calls answer"):
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
import { simOf, simQuery, simRead } from './sim-detail-routes.js';
import { cellsSeen, holderOfSim, tagCounts } from './sim-repo.js';

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
      response: {
        type: 'object',
        properties: { items: { type: 'array', items: { type: 'object', properties: { tag: { type: 'string' }, sims: { type: 'integer' } } } } },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { prefix } = (req.body ?? {}) as { prefix?: string };
      return { items: await tagCounts(req.server.db, auth.orgId, prefix ?? null) };
    },
  },
  simRead(
    '/sim/belong_org/:iccid',
    {
      params: { type: 'object', required: ['iccid'], additionalProperties: false, properties: { iccid: sims.properties.iccid } },
      response: {
        type: 'object',
        properties: { iccid: { type: 'string' }, orgCode: { type: 'string' }, orgName: { type: 'string' }, current: { type: 'boolean' } },
      },
    },
    async (req) => {
      const auth = req.requireAuth();
      const { iccid } = req.params as { iccid: string };
      const row = await holderOfSim(req.server.db, auth.orgId, iccid);
      if (!row) throw notFound('sim', iccid);
      return { iccid: row.iccid, orgCode: row.code, orgName: row.name, current: row.current };
    },
    fieldLabels(sims),
  ),
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
                network: { type: 'string' },
                rat: { type: ['string', 'null'] },
                firstSeen: { type: 'string', format: 'date-time' },
                lastSeen: { type: 'string', format: 'date-time' },
                attaches: { type: 'integer' },
                sessions: { type: 'integer' },
              },
            },
          },
        },
      },
    },
    handler: async (req) => {
      const sim = await simOf(req);
      return { items: await cellsSeen(req.server.db, sim) };
    },
  },
]);

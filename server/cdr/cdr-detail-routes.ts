/**
 * The CDR calls of SPEC.md section 7 beyond the list and the organisation's summary (issue 20; docs/decisions.md
 * "The CDR calls' path segments"):
 *
 * - GET /stdcdrs/{id}: one CDR of the organisation with its data session (the network's session around it, or, where
 *   the network reported none, the session the record itself describes) and its cell (network, MCC-MNC, country,
 *   radio, and the SIM's position within 48 hours before it, SPEC.md section 9).
 * - GET /info_country_areas: every country with its area (continent), named in the caller's language, and whether the
 *   organisation's SIMs were seen there; the CDR page filters by it.
 * - GET /sum/{org}/stdcdrs/{iccid}?from&to: one SIM's volumes per natural day (UTC) over at most 31 days, with its
 *   networks and radios, from the daily rollups and, for the breakdown, its CDRs in the window (one SIM's index).
 */
import type { FastifyRequest } from 'fastify';
import { translate } from '../../common/i18n.js';
import { LIMITS } from '../../common/limits.js';
import { RESOURCES } from '../../common/resource-registry.js';
import { AREAS, COUNTRY_AREA } from '../../common/country-areas.js';
import { invalid, notFound } from '../http/api-error.js';
import { fieldLabels } from '../http/labels.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { cdrOf, countriesSeen, positionBefore, sessionClosedAfter, sessionOpenedBefore, sessionTotals, simDailyTotals, simIdOf, simNetworkTotals } from './cdr-repo.js';

const cdrs = RESOURCES.cdrs;
const DAY = { type: 'string', format: 'date' } as const;
const ICCID = { type: 'string', pattern: '^89[0-9]{17,18}$' } as const;
const totals = { uplinkKb: { type: 'number' }, downlinkKb: { type: 'number' }, volumeKb: { type: 'number' }, cdrCount: { type: 'integer' } };


const cdrProps = Object.fromEntries(Object.entries(cdrs.properties).map(([k, v]) => [k, { type: (v as { type: unknown }).type }]));

/** The organisation named in a path: the caller's own, by code or id; any other reads as missing. */
function ownOrg(req: FastifyRequest, org: string): void {
  const auth = req.requireAuth();
  if (org !== auth.orgCode && org !== auth.orgId) throw notFound('organisation', org);
}

export const cdrDetailRoutes: RouteDef[] = defineRoutes([
  {
    service: 'cdr',
    method: 'GET',
    path: '/stdcdrs/:id',
    permission: { action: 'read', subject: 'cdr' },
    summary: 'One CDR with its session and cell',
    schema: {
      // CDR ids are the table's bigint identity: digits, at most 18 (below 2^63).
      params: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'string', pattern: '^[1-9][0-9]{0,17}$' } } },
      response: {
        type: 'object',
        properties: {
          cdr: { type: 'object', properties: cdrProps },
          session: {
            type: 'object',
            properties: {
              source: { type: 'string', enum: ['network', 'record'] },
              startedAt: { type: 'string', format: 'date-time' },
              endedAt: { type: ['string', 'null'], format: 'date-time' },
              apn: { type: ['string', 'null'] },
              ip: { type: ['string', 'null'] },
              ...totals,
            },
          },
          cell: {
            type: 'object',
            properties: {
              network: { type: 'string' }, mccMnc: { type: ['string', 'null'] }, country: { type: ['string', 'null'] }, countryName: { type: ['string', 'null'] },
              rat: { type: 'string' }, lat: { type: ['number', 'null'] }, lon: { type: ['number', 'null'] }, locatedAt: { type: ['string', 'null'], format: 'date-time' },
            },
          },
        },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const { db } = req.server;
      const row = await cdrOf(db, auth.orgId, id);
      if (!row) throw notFound('record', id);
      const { sim_id: simId, ...cdr } = row;
      // The network's session that holds the record: the last opening at or before its start (within SPEC.md's 3
      // months of session data) and the first closing after that opening.
      const opened = await sessionOpenedBefore(db, auth.orgId, simId, row.startAt);
      const closed = opened ? await sessionClosedAfter(db, auth.orgId, simId, opened.at) : undefined;
      // A session closed before the record ended is not its session: the record describes its own.
      const network = opened && (!closed || closed.at >= row.endAt);
      const startedAt = network ? opened.at : row.startAt;
      const endedAt = network ? (closed?.at ?? null) : row.endAt;
      const sums = await sessionTotals(db, auth.orgId, simId, startedAt, endedAt);
      // Where the SIM was: its last position at or before the record's start, no older than 48 hours.
      const located = await positionBefore(db, auth.orgId, simId, row.startAt);
      const country = (cdr.country as string | null) ?? null;
      return {
        cdr,
        session: { source: network ? 'network' : 'record', startedAt, endedAt, apn: network ? opened.apn : null, ip: network ? opened.ip : null, ...sums },
        cell: {
          network: cdr.network, mccMnc: cdr.mccMnc ?? null, country, countryName: country ? (new Intl.DisplayNames([req.lang], { type: 'region' }).of(country) ?? country) : null,
          rat: cdr.rat, lat: located?.lat ?? null, lon: located?.lon ?? null, locatedAt: located?.at ?? null,
        },
      };
    },
  },
  {
    service: 'cdr',
    method: 'GET',
    path: '/info_country_areas',
    permission: { action: 'read', subject: 'cdr' },
    summary: 'Countries and their areas',
    schema: {
      querystring: { type: 'object', additionalProperties: false, properties: { area: { type: 'string', enum: [...AREAS] } } },
      response: {
        type: 'array',
        items: { type: 'object', properties: { value: { type: 'string' }, label: { type: 'string' }, code: { type: 'string' }, name: { type: 'string' }, area: { type: 'string' }, areaName: { type: 'string' }, seen: { type: 'boolean' } } },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { area } = req.query as { area?: string };
      // The countries of the networks the organisation's SIMs were last seen on (one pass over its SIMs, not its CDRs).
      const seen = new Set(await countriesSeen(req.server.db, auth.orgId));
      const names = new Intl.DisplayNames([req.lang], { type: 'region' });
      const collator = new Intl.Collator(req.lang);
      const items = [...COUNTRY_AREA]
        .filter(([, a]) => !area || a === area)
        .map(([code, a]) => {
          const name = names.of(code) ?? code;
          const areaName = translate(req.lang, `areas.${a}`);
          return { value: code, label: `${name} · ${areaName}`, code, name, area: a, areaName, seen: seen.has(code) };
        });
      // The countries the SIMs were seen in first, then by area and name in the caller's language.
      return items.sort((x, y) => Number(y.seen) - Number(x.seen) || collator.compare(x.areaName, y.areaName) || collator.compare(x.name, y.name));
    },
  },
  {
    service: 'cdr',
    method: 'GET',
    path: '/sum/:org/stdcdrs/:iccid',
    permission: { action: 'read', subject: 'cdr' },
    labels: fieldLabels(cdrs),
    summary: "One SIM's CDR summary",
    schema: {
      params: { type: 'object', required: ['org', 'iccid'], additionalProperties: false, properties: { org: { type: 'string', minLength: 1, maxLength: 40 }, iccid: ICCID } },
      querystring: { type: 'object', required: ['from', 'to'], additionalProperties: false, properties: { from: DAY, to: DAY } },
      response: {
        type: 'object',
        properties: {
          iccid: { type: 'string' },
          from: { type: 'string' },
          to: { type: 'string' },
          days: { type: 'array', items: { type: 'object', properties: { day: { type: 'string' }, ...totals } } },
          total: { type: 'object', properties: totals },
          networks: { type: 'array', items: { type: 'object', properties: { network: { type: 'string' }, rat: { type: 'string' }, ...totals } } },
        },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { org, iccid } = req.params as { org: string; iccid: string };
      ownOrg(req, org);
      const { from, to } = req.query as { from: string; to: string };
      const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
      if (days < 1) throw invalid('to', 'notBefore');
      if (days > LIMITS.cdrSummaryDays) throw invalid('to', 'maxSpanDays', { days: LIMITS.cdrSummaryDays });
      const { db } = req.server;
      const simId = await simIdOf(db, auth.orgId, iccid);
      if (!simId) throw notFound('sim', iccid);
      const [perDay, networks] = await Promise.all([simDailyTotals(db, auth.orgId, simId, from, to), simNetworkTotals(db, auth.orgId, simId, from, to)]);
      const sum = (k: 'uplinkKb' | 'downlinkKb' | 'volumeKb' | 'cdrCount') => perDay.reduce((a, r) => a + Number(r[k]), 0);
      return {
        iccid, from, to, days: perDay, networks,
        total: { uplinkKb: sum('uplinkKb'), downlinkKb: sum('downlinkKb'), volumeKb: sum('volumeKb'), cdrCount: sum('cdrCount') },
      };
    },
  },
]);

/**
 * The CDR calls of SPEC.md section 7 beyond the list and the organisation's summary (docs/decisions.md
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
import { translate } from '../../common/i18n.js';
import { ICCID_PATTERN } from '../../common/iccid.js';
import { RESOURCES } from '../../common/resource-registry.js';
import { AREAS, COUNTRY_AREA } from '../../common/country-areas.js';
import { notFound } from '../http/api-error.js';
import { fieldLabels } from '../http/labels.js';
import { ownOrg } from '../http/own-org.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { arrayOf, ID_TEXT, NULLABLE_TEXT, obj, outObj, typed } from '../http/shapes.js';
import { cdrRoute, checkDays, DAILY_TOTALS, DAY, totalOf, TOTALS } from './cdr-routes.js';
import {
  cdrOf,
  countriesSeen,
  positionBefore,
  sessionClosedAfter,
  sessionOpenedBefore,
  sessionTotals,
  simDailyTotals,
  simIdOf,
  simNetworkTotals,
} from './cdr-repo.js';

const cdrs = RESOURCES.cdrs;
const ICCID = { type: 'string', pattern: ICCID_PATTERN } as const;
const NULLABLE_TIME = { type: NULLABLE_TEXT, format: 'date-time' } as const;

const cdrProps = Object.fromEntries(Object.entries(cdrs.properties).map(([k, v]) => [k, { type: (v as { type: unknown }).type }]));

export const cdrDetailRoutes: RouteDef[] = defineRoutes([
  cdrRoute('GET', '/stdcdrs/:id', 'read', {
    summary: 'One CDR with its session and cell',
    schema: {
      // CDR ids are the table's bigint identity: digits, at most 18 (below 2^63).
      params: obj({ id: { type: 'string', pattern: '^[1-9][0-9]{0,17}$' } }, ['id']),
      response: outObj({
        cdr: outObj(cdrProps),
        session: typed({
          source: { type: 'string', enum: ['network', 'record'] },
          startedAt: { type: 'string', format: 'date-time' },
          endedAt: NULLABLE_TIME,
          apn: NULLABLE_TEXT,
          ip: NULLABLE_TEXT,
          ...TOTALS,
        }),
        cell: typed({
          network: 'string',
          mccMnc: NULLABLE_TEXT,
          country: NULLABLE_TEXT,
          countryName: NULLABLE_TEXT,
          rat: 'string',
          lat: ['number', 'null'],
          lon: ['number', 'null'],
          locatedAt: NULLABLE_TIME,
        }),
      }),
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
          network: cdr.network,
          mccMnc: cdr.mccMnc ?? null,
          country,
          countryName: country ? (new Intl.DisplayNames([req.lang], { type: 'region' }).of(country) ?? country) : null,
          rat: cdr.rat,
          lat: located?.lat ?? null,
          lon: located?.lon ?? null,
          locatedAt: located?.at ?? null,
        },
      };
    },
  }),
  cdrRoute('GET', '/info_country_areas', 'read', {
    summary: 'Countries and their areas',
    schema: {
      querystring: obj({ area: { type: 'string', enum: [...AREAS] } }),
      response: arrayOf(typed({ value: 'string', label: 'string', code: 'string', name: 'string', area: 'string', areaName: 'string', seen: 'boolean' })),
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
  }),
  cdrRoute('GET', '/sum/:org/stdcdrs/:iccid', 'read', {
    labels: fieldLabels(cdrs),
    summary: "One SIM's CDR summary",
    schema: {
      params: obj({ org: ID_TEXT, iccid: ICCID }, ['org', 'iccid']),
      querystring: obj({ from: DAY, to: DAY }, ['from', 'to']),
      response: typed({
        iccid: 'string',
        from: 'string',
        to: 'string',
        ...DAILY_TOTALS,
        networks: arrayOf(typed({ network: 'string', rat: 'string', ...TOTALS })),
      }),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { org, iccid } = req.params as { org: string; iccid: string };
      ownOrg(req, org);
      const { from, to } = req.query as { from: string; to: string };
      checkDays(from, to);
      const { db } = req.server;
      const simId = await simIdOf(db, auth.orgId, iccid);
      if (!simId) throw notFound('sim', iccid);
      const [perDay, networks] = await Promise.all([simDailyTotals(db, auth.orgId, simId, from, to), simNetworkTotals(db, auth.orgId, simId, from, to)]);
      return { iccid, from, to, days: perDay, networks, total: totalOf(perDay) };
    },
  }),
]);

/**
 * A SIM's diagnose report (SPEC.md section 7: GET /cube/sims/diagnose/{id} and its /pdf): the facts read in one go,
 * judged by server/domain/diagnose.ts, each check worded in the caller's language (common/locales, "diagnose.").
 */
import type { FastifyRequest } from 'fastify';
import { translate } from '../../common/i18n.js';
import type { Language } from '../../common/limits.js';
import { RESOURCES } from '../../common/resource-registry.js';
import { diagnose, overall, type Check, type DiagnoseFacts } from '../domain/diagnose.js';
import { notFound } from '../http/api-error.js';
import { consoleLabel, fieldLabels } from '../http/labels.js';
import { defineRoutes } from '../http/route.js';
import { diagnosePdf } from './diagnose-pdf.js';
import { diagnoseBundles, diagnoseFacts } from './sim-repo.js';

const sims = RESOURCES.sims;
const params = { type: 'object', required: ['iccid'], additionalProperties: false, properties: { iccid: sims.properties.iccid } };

interface Gathered {
  iccid: string;
  imsi: string | null;
  msisdn: string | null;
  network: string | null;
  deviceName: string | null;
  at: Date;
  checks: Check[];
}

async function gather(req: FastifyRequest): Promise<Gathered> {
  const auth = req.requireAuth();
  const { iccid } = req.params as { iccid: string };
  const { db } = req.server;
  const sim = await diagnoseFacts(db, auth.orgId, iccid);
  if (!sim) throw notFound('sim', iccid);
  const bundles = await diagnoseBundles(db, auth.orgId, sim.id);
  const date = (v: Date | string | null) => (v === null ? null : new Date(v));
  const facts: DiagnoseFacts = {
    ...sim,
    lastSessionAt: date(sim.lastSessionAt),
    locationAt: date(sim.locationAt),
    operationStartedAt: date(sim.operationStartedAt),
    bundles,
  };
  const checks = diagnose(facts, { session: new Date(sim.sessionSince), location: new Date(sim.locationSince) });
  return { iccid, imsi: sim.imsi, msisdn: sim.msisdn, network: sim.network, deviceName: sim.deviceName, at: new Date(sim.now), checks };
}

/** A check's reason in words: states and operations named as the console names them, volumes in MB. */
function reasonOf(lang: Language, c: Check): string {
  const p: Record<string, unknown> = { ...c.params };
  if (typeof p.status === 'string') p.status = consoleLabel(lang, `sims.enum.status.${p.status}`) ?? p.status;
  if (typeof p.operation === 'string') p.operation = consoleLabel(lang, `simDetail.operations.${p.operation}`) ?? p.operation;
  if (typeof p.leftKb === 'number') p.left = new Intl.NumberFormat(lang, { style: 'unit', unit: 'megabyte', maximumFractionDigits: 1 }).format(p.leftKb / 1024);
  return translate(lang, `diagnose.reasons.${c.reason}`, p);
}

const RESULT = { type: 'string', enum: ['pass', 'warn', 'fail'] };

export const simDiagnoseRoutes = defineRoutes([
  {
    service: 'main',
    method: 'GET',
    path: '/cube/sims/diagnose/:iccid',
    permission: { action: 'read', subject: 'sim' },
    labels: fieldLabels(sims),
    schema: {
      params,
      response: {
        type: 'object',
        properties: {
          iccid: { type: 'string' },
          at: { type: 'string', format: 'date-time' },
          verdict: RESULT,
          checks: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                key: { type: 'string' },
                title: { type: 'string' },
                result: RESULT,
                message: { type: 'string' },
                at: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
      },
    },
    handler: async (req) => {
      const g = await gather(req);
      return {
        iccid: g.iccid,
        at: g.at,
        verdict: overall(g.checks),
        checks: g.checks.map((c) => ({
          key: c.key,
          title: translate(req.lang, `diagnose.checks.${c.key}`),
          result: c.result,
          message: reasonOf(req.lang, c),
          ...(c.at ? { at: c.at } : {}),
        })),
      };
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/cube/sims/diagnose/:iccid/pdf',
    permission: { action: 'read', subject: 'sim' },
    labels: fieldLabels(sims),
    raw: true,
    schema: { params, response: {} },
    // Made on request from the same checks the page shows (nothing stored that could drift).
    handler: async (req, reply) => {
      const g = await gather(req);
      const lang = req.lang;
      const t = (key: string, p: Record<string, unknown> = {}) => translate(lang, key, p);
      const label = (field: string) => consoleLabel(lang, `sims.fields.${field}`) ?? field;
      const facts: Array<[string, string]> = [
        [label('imsi'), g.imsi ?? '—'],
        [label('msisdn'), g.msisdn ?? '—'],
        [label('network'), g.network ?? '—'],
        [label('deviceName'), g.deviceName ?? '—'],
      ];
      const pdf = await diagnosePdf(
        {
          iccid: g.iccid,
          facts,
          at: g.at,
          verdict: overall(g.checks),
          checks: g.checks.map((c) => ({ title: t(`diagnose.checks.${c.key}`), result: c.result, message: reasonOf(lang, c), at: c.at })),
        },
        {
          title: t('diagnose.title'),
          made: t('diagnose.made', { at: `${g.at.toISOString().slice(0, 19).replace('T', ' ')} UTC` }),
          verdict: { pass: t('diagnose.verdict.pass'), warn: t('diagnose.verdict.warn'), fail: t('diagnose.verdict.fail') },
          result: { pass: t('diagnose.result.pass'), warn: t('diagnose.result.warn'), fail: t('diagnose.result.fail') },
          check: t('diagnose.columns.check'),
          outcome: t('diagnose.columns.result'),
          reason: t('diagnose.columns.reason'),
          page: (n, total) => t('pdf.page', { n, total }),
        },
        lang,
      );
      return reply
        .type('application/pdf')
        .header('content-disposition', `attachment; filename="diagnose-${g.iccid}.pdf"`)
        .header('cache-control', 'no-store')
        .send(Buffer.from(pdf));
    },
  },
]);

/**
 * Webhook settings and the notification log (SPEC.md section 7, Developer). A developer has one
 * notification key per organisation, made on first use: its signing secret (whsec_…, Standard Webhooks), its URL and
 * whether it is on. Only its owner reads it; the key's rights follow cube-developer-key (admins and superadmins).
 *
 * - GET  /developer/key/notification/:id          the caller's key (:id is the caller's account id), made on first use
 * - PUT  /developer/key/notification/:id          a new secret; the old one goes on signing beside it for 24 hours
 * - PUT  /developer/key/notification/webhookStatus/:id   on or off (:id the key's id)
 * - PUT  /developer/key/notification/callbackUrl/:id     the URL: full HTTPS, to a public address (SSRF)
 * - POST /developer/notification/:id              a test event, or with logId a logged delivery again, sent at once
 * - POST /developer/log/notification              the organisation's delivery attempts, newest first
 * - GET  /developer/log/notification/type         the event types and subtypes, in the caller's language
 */
import { translate } from '../../common/i18n.js';
import type { Queryable } from '../db/db.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { CODES } from '../../common/errors.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { arrayOf, ID_PARAMS, NULLABLE_TEXT, obj, subjectRoutes, typed } from '../http/shapes.js';
import type { FastifyRequest } from 'fastify';
import {
  lockOwnNotificationKey,
  notificationKeyOf,
  notificationLogPage,
  rotateNotificationSecret,
  setWebhookStatus,
  setWebhookUrl,
  type NotificationKeyRow,
} from './developer-repo.js';
import { HTTP_CODE, logRoute } from './log-page.js';
import { newSecret } from './signing.js';
import { checkTarget } from './ssrf.js';
import { queueReplay, queueTest } from './webhooks.js';

/** Every event a webhook can carry, by type (the event log's, 015_event_log.sql, and the test event). */
export const EVENT_CATALOGUE: Record<string, string[]> = {
  // network_change: the SIM registered on another network (server/network-reports/network-reports.ts), what network and country rules match.
  sim: ['status_change', 'imei_change', 'bundle_change', 'transfer', 'connection', 'tag_change', 'info_change', 'network_change'],
  sms: ['received', 'delivered', 'failed'],
  sms_schedule: ['run_finished'],
  task: ['finished'],
  autoflow: ['rule_fired'],
  // Bundles that act: cycles, allowances and their controls, coverage, a pool's stop; and a usage rule's threshold
  // crossed (server/autoflow/schedule.ts).
  usage: [
    'cycle_reset',
    'allowance_reached',
    'overage_throttled',
    'overage_stopped',
    'overage_released',
    'out_of_coverage',
    'back_in_coverage',
    'pool_stopped',
    'pool_released',
    'threshold_crossed',
  ],
  // Shared pools: pool_events rows (035_pool_engine.sql) and settings changes.
  pool: [
    'setup',
    'sim_enrolment',
    'sim_exit',
    'limit_increase',
    'limit_decrease',
    'overage',
    'overage_recovery',
    'new_pool_launch',
    'manage_sims_add',
    'scheduled_scan',
    'settings_change',
  ],
  // Invoices: made by the monthly job, then their lifecycle.
  invoice: ['created', 'published', 'settled', 'paid', 'corrected', 'obsoleted', 'credited', 'settlement_updated', 'deposit_applied', 'deposit_released'],
  test: ['ping'],
};
const EVENT_TYPES = Object.keys(EVENT_CATALOGUE);
const SUBTYPES = [...new Set(Object.values(EVENT_CATALOGUE).flat())];
/** The old secret signs beside the new one this long after a rotation. */
export const ROTATION_OVERLAP_HOURS = 24;

const KEY = 'cube-developer-key' as const;

const keySchema = typed({
  id: 'string',
  keyId: 'string',
  accountId: 'string',
  secret: 'string',
  previousSecretUntil: NULLABLE_TEXT,
  webhookUrl: NULLABLE_TEXT,
  status: 'string',
  disabledReason: NULLABLE_TEXT,
  failingSince: NULLABLE_TEXT,
  createdAt: 'string',
  updatedAt: 'string',
});
const logSchema = typed({
  id: 'string',
  notificationKeyId: NULLABLE_TEXT,
  url: 'string',
  eventType: 'string',
  subtype: NULLABLE_TEXT,
  payload: {},
  sentAt: 'string',
  httpCode: ['integer', 'null'],
  response: NULLABLE_TEXT,
  error: NULLABLE_TEXT,
  attempt: 'integer',
  messageId: NULLABLE_TEXT,
  durationMs: ['integer', 'null'],
});
const route = subjectRoutes('main', KEY);
/** A change to the caller's own key :id (its update right), answered with the key as it is after. */
const keyChange = (path: string, body: object | null, handler: RouteDef['handler']) =>
  route('PUT', path, 'update', { schema: { params: ID_PARAMS, ...(body ? { body } : {}), response: keySchema }, handler });

/** The caller's own key by its id; another developer's key, or another organisation's, is not found. */
async function ownKey(req: FastifyRequest, q: Queryable, id: string): Promise<NotificationKeyRow> {
  const auth = req.requireAuth();
  const row = await lockOwnNotificationKey(q, auth.orgId, auth.accountId, id);
  if (!row) throw notFound('notificationKey', id);
  return row;
}

/** Refuse a URL that is not full HTTPS to a public address, naming the field and the rule. */
async function checkedUrl(req: FastifyRequest, raw: string): Promise<string> {
  const checked = await checkTarget(raw, req.server.config.webhookAllowPrivate);
  if (checked.ok) return checked.target.url.toString();
  const rule = { invalid: 'webhookHttps', notHttps: 'webhookHttps', privateAddress: 'webhookPrivate', unresolvable: 'webhookUnresolvable' }[checked.problem];
  throw invalid('webhookUrl', rule);
}

export const notificationRoutes = defineRoutes([
  route('GET', '/developer/key/notification/:id', 'read', {
    schema: { params: ID_PARAMS, response: keySchema },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      // One's own key only: a secret is its owner's.
      if (id !== auth.accountId) throw notFound('account', id);
      return req.server.db.tx(async (q) => {
        return notificationKeyOf(q, auth.orgId, auth.accountId, newSecret());
      });
    },
  }),
  keyChange('/developer/key/notification/:id', null, async (req) => {
    const { id } = req.params as { id: string };
    return req.server.db.tx(async (q) => {
      await ownKey(req, q, id);
      const rotated = await rotateNotificationSecret(q, id, ROTATION_OVERLAP_HOURS, newSecret());
      await audit(q, req, { action: 'rotate_secret', entity: 'notification_key', entityId: id });
      return rotated;
    });
  }),
  keyChange('/developer/key/notification/webhookStatus/:id', obj({ status: { type: 'string', enum: ['enabled', 'disabled'] } }, ['status']), async (req) => {
    const { id } = req.params as { id: string };
    const { status } = req.body as { status: 'enabled' | 'disabled' };
    return req.server.db.tx(async (q) => {
      const key = await ownKey(req, q, id);
      if (status === 'enabled' && !key.webhookUrl) throw invalid('webhookUrl', 'required');
      const updated = await setWebhookStatus(q, id, status);
      await audit(q, req, { action: 'webhook_status', entity: 'notification_key', entityId: id, before: { status: key.status }, after: { status } });
      return updated;
    });
  }),
  keyChange(
    '/developer/key/notification/callbackUrl/:id',
    obj({ webhookUrl: { type: 'string', minLength: 1, maxLength: 2048 } }, ['webhookUrl']),
    async (req) => {
      const { id } = req.params as { id: string };
      const url = await checkedUrl(req, (req.body as { webhookUrl: string }).webhookUrl.trim());
      return req.server.db.tx(async (q) => {
        const key = await ownKey(req, q, id);
        const updated = await setWebhookUrl(q, id, url);
        await audit(q, req, {
          action: 'webhook_url',
          entity: 'notification_key',
          entityId: id,
          before: { webhookUrl: key.webhookUrl },
          after: { webhookUrl: url },
        });
        return updated;
      });
    },
  ),
  route('POST', '/developer/notification/:id', 'update', {
    schema: {
      params: ID_PARAMS,
      body: obj({ logId: { type: 'string', pattern: '^[0-9]{1,18}$' } }),
      response: typed({ logId: 'string', httpCode: ['integer', 'null'], error: NULLABLE_TEXT, delivered: 'boolean' }),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const { logId } = (req.body ?? {}) as { logId?: string };
      const deliveryId = await req.server.db.tx(async (q) => {
        const key = await ownKey(req, q, id);
        if (!key.webhookUrl) throw invalid('webhookUrl', 'required');
        if (!logId) return queueTest(q, { orgId: auth.orgId, id }, new Date());
        const replay = await queueReplay(q, { orgId: auth.orgId, id }, logId);
        if (!replay) throw notFound('notificationLog', logId);
        return replay;
      });
      const result = await req.server.webhooks.deliverNow(deliveryId);
      if (!result) throw new ApiError(409, CODES.conflict);
      return result;
    },
  }),
  logRoute(
    '/developer/log/notification',
    { eventType: { type: 'string', enum: EVENT_TYPES }, subtype: { type: 'string', enum: SUBTYPES }, httpCode: HTTP_CODE, failed: { type: 'boolean' } },
    logSchema,
    notificationLogPage,
  ),
  route('GET', '/developer/log/notification/type', 'read', {
    schema: { response: arrayOf(typed({ type: 'string', label: 'string', subtypes: arrayOf(typed({ subtype: 'string', label: 'string' })) })) },
    handler: async (req) =>
      Object.entries(EVENT_CATALOGUE).map(([type, subtypes]) => ({
        type,
        label: translate(req.lang, `eventTypes.${type}`),
        subtypes: subtypes.map((subtype) => ({ subtype, label: translate(req.lang, `eventSubtypes.${subtype}`) })),
      })),
  }),
]);

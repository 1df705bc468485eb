/** Generator: API keys, notification keys, webhooks and the developer logs. */
import { DEMO_API_KEY_ID, DEMO_NOTIFICATION_KEY_ID, fixedId } from './fixtures.js';
import { type Ctx, DAY, HOUR, MINUTE, type Row, fakePublicKey, insertRows } from './rows.js';

/** A Standard Webhooks signing secret made of the seed's random characters (whsec_ + base64). */
const whsec = (raw: string) => `whsec_${Buffer.from(raw).toString('base64')}`;

export async function seedDeveloper(ctx: Ctx): Promise<void> {
  const { rng, now, size } = ctx;
  const keys: Row[] = [
    {
      org_id: 'org-demo',
      id: DEMO_API_KEY_ID,
      account_id: 'acc-admin',
      name: 'Fleet backend',
      key_id: rng.id(24),
      public_key: fakePublicKey(rng),
      created_at: new Date(now.getTime() - 90 * DAY),
      last_used_at: new Date(now.getTime() - HOUR),
    },
    {
      org_id: 'org-demo',
      id: fixedId('apikey:org-demo:1'),
      account_id: 'acc-superadmin',
      name: null,
      key_id: rng.id(24),
      public_key: fakePublicKey(rng),
      created_at: new Date(now.getTime() - 30 * DAY),
      last_used_at: null,
    },
    {
      org_id: 'org-other',
      id: fixedId('apikey:org-other:0'),
      account_id: 'acc-other-admin',
      name: 'ERP connector',
      key_id: rng.id(24),
      public_key: fakePublicKey(rng),
      created_at: new Date(now.getTime() - 60 * DAY),
      last_used_at: null,
    },
  ];
  await insertRows(ctx.q, 'api_keys', keys);
  const notif: Row[] = [
    // The demo's receiver does not exist (example.com): its webhook is kept off, or every event would queue deliveries
    // that fail and, after 3 days, mail the demo admin that it was disabled. Switching it on shows exactly that.
    {
      org_id: 'org-demo',
      id: DEMO_NOTIFICATION_KEY_ID,
      account_id: 'acc-admin',
      key_id: rng.id(24),
      secret: whsec(rng.id(40)),
      webhook_url: 'https://hooks.demo.example.com/iot/events',
      status: 'disabled',
      created_at: new Date(now.getTime() - 90 * DAY),
    },
    {
      org_id: 'org-other',
      id: fixedId('notifkey:org-other:0'),
      account_id: 'acc-other-admin',
      key_id: rng.id(24),
      secret: whsec(rng.id(40)),
      webhook_url: null,
      status: 'disabled',
      created_at: new Date(now.getTime() - 60 * DAY),
    },
  ];
  await insertRows(ctx.q, 'notification_keys', notif);

  const paths = [
    ['POST', '/api/public/v1/sims/list'],
    ['GET', '/api/public/v1/sims/{iccid}'],
    ['POST', '/api/public/v1/sims/suspend'],
    ['POST', '/api/public/v1/sms/send'],
    ['GET', '/api/public/v1/usage'],
  ] as const;
  const logs: Row[] = [];
  const notifLogs: Row[] = [];
  // Types and subtypes of the event log (server/developer/notification-routes.ts EVENT_CATALOGUE).
  const events = [
    ['sim', 'status_change'],
    ['sim', 'connection'],
    ['task', 'finished'],
    ['sms', 'received'],
    ['sms', 'delivered'],
  ] as const;
  const n = size === 'small' ? 10 : 400;
  for (let i = 0; i < n; i++) {
    const org = i % 10 === 9 ? 'org-other' : 'org-demo';
    const [method, path] = rng.pick(paths);
    const code = rng.weighted([
      [200, 88],
      [400, 6],
      [401, 2],
      [403, 2],
      [500, 2],
    ]);
    const at = new Date(now.getTime() - rng.int(1, 30 * 24 * 60) * MINUTE);
    logs.push({
      org_id: org,
      api_key_id: org === 'org-demo' ? DEMO_API_KEY_ID : fixedId('apikey:org-other:0'),
      ip: `203.0.113.${rng.int(1, 254)}`,
      trace_id: rng.id(32).toLowerCase(),
      at,
      http_code: code,
      method,
      path,
      headers: { 'content-type': 'application/json', 'user-agent': 'fleet-backend/2.3' },
      body: method === 'POST' ? '{"pageSize":50}' : null,
      response: code === 200 ? '{"status":{"code":"CB-00-0000","success":true}}' : `{"status":{"success":false,"httpCode":${code}}}`,
      duration_ms: rng.int(8, 900),
    });
    if (org === 'org-demo') {
      const [eventType, subtype] = rng.pick(events);
      const http = rng.weighted([
        [200, 90],
        [500, 5],
        [504, 5],
      ]);
      notifLogs.push({
        org_id: org,
        notification_key_id: DEMO_NOTIFICATION_KEY_ID,
        url: 'https://hooks.demo.example.com/iot/events',
        event_type: eventType,
        subtype,
        payload: { type: eventType, subtype, timestamp: at.toISOString(), data: { iccid: rng.pick(ctx.sims.filter((s) => s.org === org)).iccid } },
        sent_at: at,
        http_code: http,
        response: http === 200 ? 'OK' : 'Upstream error',
        attempt: http === 200 ? 1 : rng.int(1, 3),
      });
    }
  }
  await insertRows(ctx.q, 'api_logs', logs);
  await insertRows(ctx.q, 'notification_logs', notifLogs);
}

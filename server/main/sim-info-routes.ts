/**
 * One SIM's basic information (GET /sim/basic) and what an admin may edit on it (POST /sim/deviceName,
 * /device/saveNote, /device/saveTag): device name up to 40, notes up to 140, up to 10 tags of up to 10 characters,
 * each rule from schemas/sims.json. Each change is a SIM event and an audit row.
 */
import { RESOURCES } from '../../common/resource-registry.js';
import { fieldsSchema } from '../../common/resources.js';
import { selectOf, snake } from '../db/resource-list.js';
import { notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { fieldLabels } from '../http/labels.js';
import { defineRoutes, type RouteDef } from '../http/route.js';

const sims = RESOURCES.sims;
const SELECT = selectOf(sims);
const simSchema = { type: 'object', properties: sims.properties };
const iccid = sims.properties.iccid;

function editRoute(path: string, field: 'deviceName' | 'notes' | 'tags'): RouteDef {
  const body = fieldsSchema(sims, ['iccid', field]);
  return {
    service: 'main',
    method: 'POST',
    path,
    permission: { action: 'editInfo', subject: 'sim' },
    schema: { body, response: simSchema },
    labels: fieldLabels(sims),
    handler: async (req) => {
      const auth = req.requireAuth();
      const values = req.body as Record<string, unknown> & { iccid: string };
      let value = values[field];
      if (typeof value === 'string') value = value.trim() || null;
      if (Array.isArray(value)) value = [...new Set(value.map((v: string) => v.trim()).filter(Boolean))];
      return req.server.db.tx(async (q) => {
        const before = (await q.query<{ id: string; value: unknown }>(`SELECT id, ${snake(field)} AS value FROM sims WHERE org_id = $1 AND iccid = $2 FOR UPDATE`, [auth.orgId, values.iccid])).rows[0];
        if (!before) throw notFound('sim', values.iccid);
        await q.query(`UPDATE sims SET ${snake(field)} = $3, updated_at = now() WHERE org_id = $1 AND id = $2`, [auth.orgId, before.id, value]);
        await q.query(
          `INSERT INTO sim_events (org_id, sim_id, iccid, type, detail, account_id, source) VALUES ($1, $2, $3, $4, $5, $6, 'console')`,
          [auth.orgId, before.id, values.iccid, field === 'tags' ? 'tag_change' : 'info_change', JSON.stringify({ field, before: before.value, after: value }), auth.accountId],
        );
        await audit(q, req, { action: 'update', entity: 'sim', entityId: values.iccid, before: { [field]: before.value }, after: { [field]: value } });
        return (await q.query(`${SELECT} WHERE t.org_id = $1 AND t.id = $2`, [auth.orgId, before.id])).rows[0];
      });
    },
  };
}

export const simInfoRoutes = defineRoutes([
  {
    service: 'main',
    method: 'GET',
    path: '/sim/basic',
    permission: { action: 'read', subject: 'sim' },
    schema: { querystring: { type: 'object', required: ['iccid'], additionalProperties: false, properties: { iccid } }, response: simSchema },
    // Another organisation's SIM answers 404 like one that does not exist.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { iccid } = req.query as { iccid: string };
      const row = (await req.server.db.query(`${SELECT} WHERE t.org_id = $1 AND t.iccid = $2`, [auth.orgId, iccid])).rows[0];
      if (!row) throw notFound('sim', iccid);
      return row;
    },
  },
  editRoute('/sim/deviceName', 'deviceName'),
  editRoute('/device/saveNote', 'notes'),
  editRoute('/device/saveTag', 'tags'),
]);

/**
 * One SIM's basic information (GET /sim/basic) and what an admin may edit on it (POST /sim/deviceName,
 * /device/saveNote, /device/saveTag): device name up to 40, notes up to 140, up to 10 tags of up to 10 characters,
 * each rule from schemas/sims.json. Each change is a SIM event and an audit row.
 */
import { RESOURCES } from '../../common/resource-registry.js';
import { fieldsSchema } from '../../common/resources.js';
import { notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { fieldLabels } from '../http/labels.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { editSimField, lockSimField, simRecord, simRecordByIccid } from './sim-repo.js';

const sims = RESOURCES.sims;
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
        const before = await lockSimField(q, auth.orgId, values.iccid, field);
        if (!before) throw notFound('sim', values.iccid);
        await editSimField(q, { orgId: auth.orgId, simId: before.id, iccid: values.iccid, field, before: before.value, value, accountId: auth.accountId });
        await audit(q, req, { action: 'update', entity: 'sim', entityId: values.iccid, before: { [field]: before.value }, after: { [field]: value } });
        return simRecord(q, auth.orgId, before.id);
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
      const row = await simRecordByIccid(req.server.db, auth.orgId, iccid);
      if (!row) throw notFound('sim', iccid);
      return row;
    },
  },
  editRoute('/sim/deviceName', 'deviceName'),
  editRoute('/device/saveNote', 'notes'),
  editRoute('/device/saveTag', 'tags'),
]);

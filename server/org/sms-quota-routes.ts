/**
 * The SMS quota of sub-organisations (SPEC.md section 7: GET and PUT /orgs/smsOperService, GET /orgs/smsOperService/{id}).
 * A sub-organisation's quota ranges from 1 to the current organisation's (SPEC.md section 5). The screen that sets
 * quotas is an admin's, so reading them needs the same right as changing them.
 */
import { RESOURCES } from '../../common/resource-registry.js';
import { invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes } from '../http/route.js';
import { arrayOf, ID_PARAMS, ID_TEXT, obj, subjectRoutes, typed } from '../http/shapes.js';
import { childOrg, childOrgs, lockOrg, memberOrg, setSmsQuota, type OrgRow } from './org-repo.js';

const quotaItem = typed({ id: 'string', code: 'string', name: 'string', smsQuota: 'integer', min: 'integer', max: 'integer' });
/** Reading the quotas needs the right to change them (see above). */
const route = subjectRoutes('main', 'org');

const itemOf = (o: OrgRow, parent: OrgRow) => ({ id: o.id, code: o.code, name: o.name, smsQuota: o.sms_quota, min: 1, max: parent.sms_quota });

export const smsQuotaRoutes = defineRoutes([
  route('GET', '/orgs/smsOperService', 'update', {
    schema: { response: typed({ code: 'string', name: 'string', smsQuota: 'integer', items: arrayOf(quotaItem) }) },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { db } = req.server;
      const current = (await memberOrg(db, auth.accountId, auth.orgId))!;
      const items = (await childOrgs(db, current.id)).map((o) => itemOf(o, current));
      return { code: current.code, name: current.name, smsQuota: current.sms_quota, items };
    },
  }),
  route('GET', '/orgs/smsOperService/:id', 'update', {
    schema: { params: ID_PARAMS, response: quotaItem },
    // Only a direct sub-organisation of the current one: anything else answers 404, like an id that does not exist.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { db } = req.server;
      const current = (await memberOrg(db, auth.accountId, auth.orgId))!;
      const { id } = req.params as { id: string };
      const child = await childOrg(db, current.id, id);
      if (!child) throw notFound('organisation', id);
      return itemOf(child, current);
    },
  }),
  route('PUT', '/orgs/smsOperService', 'update', {
    schema: { body: obj({ id: ID_TEXT, smsQuota: RESOURCES.orgs.properties.smsQuota }, ['id', 'smsQuota']), response: quotaItem },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as { id: string; smsQuota: number };
      return req.server.db.tx(async (q) => {
        // The parent's row is locked so that its quota cannot change between the check and the write.
        const current = (await lockOrg(q, auth.orgId))!;
        const child = await childOrg(q, current.id, body.id);
        if (!child) throw notFound('organisation', body.id);
        if (body.smsQuota > current.sms_quota) throw invalid('smsQuota', 'maximum', { limit: current.sms_quota });
        await setSmsQuota(q, child.id, body.smsQuota);
        await audit(q, req, {
          action: 'setSmsQuota',
          entity: 'organisation',
          entityId: child.id,
          before: { smsQuota: child.sms_quota },
          after: { smsQuota: body.smsQuota },
        });
        return itemOf({ ...child, sms_quota: body.smsQuota }, current);
      });
    },
  }),
]);

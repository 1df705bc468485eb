/** Organisations (SPEC.md section 7, "Organisations and users"): my organisations, create, rename, seats. */
import { defineAbilityFor } from '../../common/ability.js';
import { asRole } from '../../common/roles.js';
import { CODES } from '../../common/errors.js';
import { LIMITS } from '../../common/limits.js';
import { newId } from '../db/ids.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { arrayOf, ID_PARAMS, NULLABLE_TEXT, obj, subjectRoutes, typed } from '../http/shapes.js';
import { isIsoCountry } from '../../common/countries.js';
import {
  activeMembersWithOversight,
  addActiveMembers,
  deleteOrg,
  insertOrg,
  lockOrg,
  memberOrg,
  nameTaken,
  orgsOfAccount,
  rootOf,
  seatsOf,
  updateOrg,
  type OrgRow,
} from './org-repo.js';
import { smsQuotaRoutes } from './sms-quota-routes.js';
import { RESOURCES } from '../../common/resource-registry.js';
import { createBodySchema } from '../../common/resources.js';

const orgName = { type: 'string', minLength: LIMITS.orgName.min, maxLength: LIMITS.orgName.max } as const;
const country = { type: 'string', pattern: '^[A-Z]{2}$' } as const;

/** The trimmed organisation name, refused when the spaces were all that made it long enough. */
function cleanName(raw: string): string {
  const name = raw.trim();
  if (name.length < LIMITS.orgName.min) throw invalid('name', 'minLength', { limit: LIMITS.orgName.min });
  return name;
}
/** An assigned ISO 3166-1 alpha-2 code (the schema checks only its shape). */
function checkCountry(code: string): string {
  if (!isIsoCountry(code)) throw invalid('country', 'country');
  return code;
}
const SEATS = typed(Object.fromEntries(['accountCap', 'accountsUsed', 'accountsLeft', 'orgCap', 'orgsUsed', 'orgsLeft'].map((k) => [k, 'integer'])));
const orgSchema = typed({
  id: 'string',
  code: 'string',
  name: 'string',
  country: 'string',
  level: 'integer',
  parentCode: NULLABLE_TEXT,
  smsQuota: 'integer',
  role: 'string',
  default: 'boolean',
  pending_invitation: 'boolean',
});
const route = subjectRoutes('main', 'org');

type Seats = Awaited<ReturnType<typeof seatsOf>>;
/** A GET on one of my organisations (:id, its id or code; any other answers 404), answered from it and its seats. */
function myOrgRoute(path: string, response: object, answer: (org: OrgRow, seats: Seats) => unknown): RouteDef {
  return route('GET', path, 'read', {
    schema: { params: ID_PARAMS, response },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const org = await memberOrg(req.server.db, auth.accountId, id);
      if (!org) throw notFound('organisation', id);
      return answer(org, await seatsOf(req.server.db, org, req.server.config));
    },
  });
}

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === '23505';

export const orgRoutes = defineRoutes([
  route('GET', '/orgs', 'read', {
    schema: { response: arrayOf(orgSchema) },
    handler: async (req) => {
      const auth = req.requireAuth();
      return orgsOfAccount(req.server.db, auth.accountId);
    },
  }),
  route('POST', '/orgs', 'create', {
    schema: {
      // schemas/orgs.json's create form: the console's form checks the same rules.
      body: createBodySchema(RESOURCES.orgs),
      response: orgSchema,
    },
    // A sub-organisation of the current one. Its creator becomes admin, and so does every account of the
    // first-level organisation that may oversee (common/permissions.ts: the oversight privilege, or superadmin).
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as { name: string; country: string; smsQuota: number };
      const name = cleanName(body.name);
      checkCountry(body.country);
      const { db, config } = req.server;
      return db.tx(async (q) => {
        // The parent's row is locked: two creations at once cannot both take the last seat.
        const parent = (await lockOrg(q, auth.orgId))!;
        if (body.smsQuota > parent.sms_quota) throw invalid('smsQuota', 'maximum', { limit: parent.sms_quota });
        const seats = await seatsOf(q, parent, config);
        if (seats.orgsLeft <= 0) throw new ApiError(400, CODES.maxOrganisations);
        // Names are unique in the customer's own tree only (another customer's names are none of the caller's
        // business); the unique index on (root_id, lower(name)) settles two creations at once.
        if (await nameTaken(q, parent.root_id, name)) throw new ApiError(400, CODES.orgNameExists);
        const id = newId();
        const code = `${parent.code.slice(0, 20)}-${newId(6).toUpperCase()}`;
        const org = {
          id,
          code,
          name,
          country: body.country,
          parent_id: parent.id,
          level: parent.level + 1,
          brand_id: parent.brand_id,
          sms_quota: body.smsQuota,
        };
        try {
          await insertOrg(q, org);
        } catch (err) {
          if (isUniqueViolation(err)) throw new ApiError(400, CODES.orgNameExists);
          throw err;
        }
        const creatorRole = auth.role === 'superadmin' ? 'superadmin' : 'admin';
        const overseers = (await activeMembersWithOversight(q, await rootOf(q, parent.id))).filter(
          (m) => m.accountId !== auth.accountId && defineAbilityFor({ role: asRole(m.role), oversight: m.oversight }).can('oversee', 'org'),
        );
        await addActiveMembers(q, id, [
          { accountId: auth.accountId, role: creatorRole },
          ...overseers.map((m) => ({ accountId: m.accountId, role: m.role === 'superadmin' ? 'superadmin' : 'admin' })),
        ]);
        await audit(q, req, { action: 'create', entity: 'organisation', entityId: id, after: org });
        return {
          id,
          code,
          name,
          country: body.country,
          level: org.level,
          parentCode: parent.code,
          smsQuota: body.smsQuota,
          role: creatorRole,
          default: false,
          pending_invitation: false,
        };
      });
    },
  }),
  route('POST', '/orgs/:id', 'update', {
    schema: { params: ID_PARAMS, body: { ...obj({ name: orgName, country }), minProperties: 1 }, response: orgSchema },
    // Rename or update an organisation I administer, with the codes of SPEC.md section 8: 0134 not its admin and
    // 0131 a first-level name needs its superadmin (both conditions of common/permissions.ts), 0133 a settlement
    // customer keeps its name, 0135 the name is taken.
    // An organisation I am no member of answers 404, like one that does not exist.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const body = req.body as { name?: string; country?: string };
      const name = body.name === undefined ? undefined : cleanName(body.name);
      if (body.country !== undefined) checkCountry(body.country);
      return req.server.db.tx(async (q) => {
        const org = await memberOrg(q, auth.accountId, id);
        if (!org) throw notFound('organisation', id);
        await lockOrg(q, org.id);
        const record = { id: org.id, level: org.level };
        req.authorize('update', 'org', record);
        const renamed = name !== undefined && name !== org.name;
        if (renamed) {
          req.authorize('rename', 'org', record);
          if (org.settlement) throw new ApiError(400, CODES.orgSettlementName);
          if (await nameTaken(q, org.root_id, name, org.id)) throw new ApiError(400, CODES.orgNameExists);
        }
        const after = { name: name ?? org.name, country: body.country ?? org.country };
        const role = auth.caller.memberships?.find((m) => m.orgId === org.id)?.role;
        try {
          await updateOrg(q, org.id, after.name, after.country);
        } catch (err) {
          if (isUniqueViolation(err)) throw new ApiError(400, CODES.orgNameExists);
          throw err;
        }
        await audit(q, req, {
          action: renamed ? 'rename' : 'update',
          entity: 'organisation',
          entityId: org.id,
          before: { name: org.name, country: org.country },
          after,
        });
        return { id: org.id, code: org.code, ...after, level: org.level, smsQuota: org.sms_quota, role };
      });
    },
  }),
  route('DELETE', '/enterprises/delete/cube/:id', 'delete', {
    schema: { params: ID_PARAMS, response: {} },
    // Delete an organisation I administer that holds nothing: no sub-organisation, SIM, record, invoice, task or
    // file (the database refuses any such row), and not the one I am working in. First-level ones stay (0131, a
    // condition of common/permissions.ts).
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      await req.server.db.tx(async (q) => {
        const org = await memberOrg(q, auth.accountId, id);
        if (!org) throw notFound('organisation', id);
        await lockOrg(q, org.id);
        req.authorize('delete', 'org', { id: org.id, level: org.level });
        if (org.id === auth.orgId) throw new ApiError(400, CODES.orgCannotDelete);
        try {
          await deleteOrg(q, org.id);
        } catch (err) {
          // A row of the organisation's own (SIMs, CDRs, invoices, a sub-organisation, …) holds it: condition not met.
          if ((err as { code?: string }).code === '23503') throw new ApiError(400, CODES.orgCannotDelete);
          throw err;
        }
        await audit(q, req, { action: 'delete', entity: 'organisation', entityId: org.id, before: { code: org.code, name: org.name } });
      });
      return null;
    },
  }),
  myOrgRoute('/org/user/config/user_surplus/:id', SEATS, (_org, seats) => seats),
  myOrgRoute('/org/user/config/:id', typed({ ...SEATS.properties, smsQuota: 'integer', level: 'integer', code: 'string' }), (org, seats) => ({
    ...seats,
    smsQuota: org.sms_quota,
    level: org.level,
    code: org.code,
  })),
  // May organisation :id (one of mine) have another sub-organisation? The console asks before showing the create form.
  myOrgRoute('/sub_org_qty_setting/verify/:id', typed({ allowed: 'boolean', ...SEATS.properties }), (_org, seats) => ({
    allowed: seats.orgsLeft > 0,
    ...seats,
  })),
  ...smsQuotaRoutes,
]);

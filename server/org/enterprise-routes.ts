/**
 * An organisation's enterprise and settlement details (SPEC.md section 7, Organisations and users: GET
 * /enterprises/selectByOrgCode/{code}, PUT /enterprises): the legal name, tax id, address, billing contact, currency,
 * invoice type, credit limit and bank details that invoices name. Read and written by those whose role in that
 * organisation has "enterprise" rights (common/permissions.ts: administrators); a settlement customer keeps its legal
 * name (0133, as its organisation name). An organisation without details answers its defaults, marked not saved.
 */
import { defineAbilityFor } from '../../common/ability.js';
import { CODES } from '../../common/errors.js';
import { EMAIL_PATTERN, LIMITS } from '../../common/limits.js';
import { checkMsisdn } from '../../common/msisdn.js';
import { CREDIT_MAX_MINOR, INVOICE_TYPES } from '../../common/enterprise.js';
import type { Queryable } from '../db/db.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { appendEvents } from '../events/event-log.js';
import { enterpriseOf, saveEnterprise } from './enterprise-repo.js';
import { lockOrg, memberOrg, memberRole, type OrgRow } from './org-repo.js';

// Optional fields take null (cleared); string rules apply only to strings.
const FIELDS = {
  legalName: { type: 'string', minLength: 1, maxLength: 100 },
  taxId: { type: ['string', 'null'], minLength: 1, maxLength: 30, pattern: '^[A-Za-z0-9 .-]+$' },
  address: { type: ['string', 'null'], maxLength: 200 },
  billingEmail: { type: ['string', 'null'], minLength: 3, maxLength: LIMITS.email, pattern: EMAIL_PATTERN },
  phone: { type: ['string', 'null'], minLength: 1, maxLength: 15, pattern: '^[0-9]+$' },
  currency: { type: 'string', maxLength: 3, pattern: '^[A-Z]{3}$' },
  invoiceType: { type: 'string', enum: [...INVOICE_TYPES] },
  creditLimitMinor: { type: ['integer', 'null'], minimum: 0, maximum: CREDIT_MAX_MINOR },
  bankName: { type: ['string', 'null'], maxLength: 100 },
  iban: { type: ['string', 'null'], maxLength: 34, pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$' },
  bic: { type: ['string', 'null'], maxLength: 11, pattern: '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$' },
} as const;

const ENTERPRISE = {
  type: 'object',
  properties: {
    orgCode: { type: 'string' }, orgName: { type: 'string' }, settlement: { type: 'boolean' }, saved: { type: 'boolean' }, canEdit: { type: 'boolean' },
    legalName: { type: 'string' }, taxId: { type: ['string', 'null'] }, address: { type: ['string', 'null'] }, billingEmail: { type: ['string', 'null'] },
    phone: { type: ['string', 'null'] }, currency: { type: 'string' }, invoiceType: { type: 'string' }, creditLimitMinor: { type: ['integer', 'null'] },
    bankName: { type: ['string', 'null'] }, iban: { type: ['string', 'null'] }, bic: { type: ['string', 'null'] }, updatedAt: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

/** The organisation (one the caller is an active member of) and what the caller's role there may do with its details. */
async function orgFor(q: Queryable, accountId: string, code: string, action: 'read' | 'update'): Promise<{ org: OrgRow; canEdit: boolean }> {
  const org = await memberOrg(q, accountId, code);
  if (!org) throw notFound('organisation', code);
  const role = (await memberRole(q, org.id, accountId))!.role;
  const ability = defineAbilityFor(role);
  if (!ability.can(action, 'enterprise')) throw new ApiError(403, CODES.permissionDenied);
  return { org, canEdit: ability.can('update', 'enterprise') };
}

async function detailsOf(q: Queryable, org: OrgRow, canEdit: boolean): Promise<Record<string, unknown> & { currency: string; invoiceType: string }> {
  const row = await enterpriseOf(q, org.id);
  const base = { orgCode: org.code, orgName: org.name, settlement: org.settlement, canEdit };
  if (row) return { ...base, saved: true, ...(row as { currency: string; invoiceType: string }) };
  return {
    ...base, saved: false, legalName: org.name, taxId: null, address: null, billingEmail: null, phone: null, currency: 'EUR', invoiceType: 'post_payment',
    creditLimitMinor: null, bankName: null, iban: null, bic: null, updatedAt: null,
  };
}

/** ISO 13616: the IBAN's check digits (mod 97 of the rearranged number is 1). */
function ibanOk(iban: string): boolean {
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const v = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

export const enterpriseRoutes: RouteDef[] = defineRoutes([
  {
    service: 'main',
    method: 'GET',
    path: '/enterprises/selectByOrgCode/:code',
    permission: { action: 'read', subject: 'enterprise' },
    summary: "An organisation's enterprise and settlement details",
    schema: {
      params: { type: 'object', required: ['code'], additionalProperties: false, properties: { code: { type: 'string', minLength: 1, maxLength: 40 } } },
      response: ENTERPRISE,
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { code } = req.params as { code: string };
      const { org, canEdit } = await orgFor(req.server.db, auth.accountId, code, 'read');
      return detailsOf(req.server.db, org, canEdit);
    },
  },
  {
    service: 'main',
    method: 'PUT',
    path: '/enterprises',
    permission: { action: 'update', subject: 'enterprise' },
    summary: "Save an organisation's enterprise and settlement details",
    schema: {
      body: { type: 'object', additionalProperties: false, required: ['orgCode', 'legalName', 'currency', 'invoiceType'], properties: { orgCode: { type: 'string', minLength: 1, maxLength: 40 }, ...FIELDS } },
      response: ENTERPRISE,
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as Record<string, string | number | null> & { orgCode: string; legalName: string };
      const trim = (v: unknown) => (typeof v === 'string' ? v.trim() || null : (v ?? null));
      const legalName = body.legalName.trim();
      if (!legalName) throw invalid('legalName', 'required');
      if (typeof body.phone === 'string' && body.phone) {
        const c = checkMsisdn(body.phone);
        if (!c.ok) throw invalid('phone', `msisdn.${c.rule}`, { value: body.phone });
      }
      if (typeof body.iban === 'string' && !ibanOk(body.iban)) throw invalid('iban', 'iban');
      return req.server.db.tx(async (q) => {
        const { org, canEdit } = await orgFor(q, auth.accountId, body.orgCode, 'update');
        await lockOrg(q, org.id);
        const before = (await enterpriseOf(q, org.id)) ?? null;
        // A settlement customer's legal name is what its invoices were issued to: it stays (0133).
        if (org.settlement && before && before.legalName !== legalName) throw new ApiError(400, CODES.orgSettlementName);
        await saveEnterprise(
          q,
          org.id,
          {
            legalName, taxId: trim(body.taxId), address: trim(body.address), billingEmail: typeof body.billingEmail === 'string' ? body.billingEmail.trim().toLowerCase() : null,
            phone: trim(body.phone), currency: body.currency, invoiceType: body.invoiceType, creditLimitMinor: body.creditLimitMinor ?? null, bankName: trim(body.bankName),
            iban: body.iban ?? null, bic: body.bic ?? null,
          },
          auth.accountId,
        );
        const after = await detailsOf(q, org, canEdit);
        await audit(q, req, { action: 'update', entity: 'enterprise', entityId: org.id, before, after });
        // Invoicing reads these details: a change is an event others may follow (no bank details in the event).
        await appendEvents(q, [{ orgId: org.id, type: 'org', subtype: 'enterprise_updated', subject: org.code, data: { currency: after.currency, invoiceType: after.invoiceType } }]);
        return after;
      });
    },
  },
]);

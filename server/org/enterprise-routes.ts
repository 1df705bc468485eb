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
import { CREDIT_MAX_MINOR, ibanOk, INVOICE_TYPES } from '../../common/enterprise.js';
import { CURRENCIES } from '../../common/currencies.js';
import { profileFromEnterprise } from '../billing/bill-types-repo.js';
import type { Queryable } from '../db/db.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, pathParams, type RouteDef } from '../http/route.js';
import { ID_TEXT, NULLABLE_TEXT, obj, subjectRoutes, typed } from '../http/shapes.js';
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
  currency: { type: 'string', enum: CURRENCIES },
  invoiceType: { type: 'string', enum: [...INVOICE_TYPES] },
  creditLimitMinor: { type: ['integer', 'null'], minimum: 0, maximum: CREDIT_MAX_MINOR },
  bankName: { type: ['string', 'null'], maxLength: 100 },
  iban: { type: ['string', 'null'], maxLength: 34, pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$' },
  bic: { type: ['string', 'null'], maxLength: 11, pattern: '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$' },
} as const;

const ENTERPRISE = typed({
  orgCode: 'string',
  orgName: 'string',
  settlement: 'boolean',
  saved: 'boolean',
  canEdit: 'boolean',
  legalName: 'string',
  taxId: NULLABLE_TEXT,
  address: NULLABLE_TEXT,
  billingEmail: NULLABLE_TEXT,
  phone: NULLABLE_TEXT,
  currency: 'string',
  invoiceType: 'string',
  creditLimitMinor: ['integer', 'null'],
  bankName: NULLABLE_TEXT,
  iban: NULLABLE_TEXT,
  bic: NULLABLE_TEXT,
  updatedAt: { type: NULLABLE_TEXT, format: 'date-time' },
});
const route = subjectRoutes('main', 'enterprise');

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
    ...base,
    saved: false,
    legalName: org.name,
    taxId: null,
    address: null,
    billingEmail: null,
    phone: null,
    currency: 'EUR',
    invoiceType: 'post_payment',
    creditLimitMinor: null,
    bankName: null,
    iban: null,
    bic: null,
    updatedAt: null,
  };
}

export const enterpriseRoutes: RouteDef[] = defineRoutes([
  route('GET', '/enterprises/selectByOrgCode/:code', 'read', {
    summary: "An organisation's enterprise and settlement details",
    schema: { params: pathParams('code'), response: ENTERPRISE },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { code } = req.params as { code: string };
      const { org, canEdit } = await orgFor(req.server.db, auth.accountId, code, 'read');
      return detailsOf(req.server.db, org, canEdit);
    },
  }),
  route('PUT', '/enterprises', 'update', {
    summary: "Save an organisation's enterprise and settlement details",
    schema: { body: obj({ orgCode: ID_TEXT, ...FIELDS }, ['orgCode', 'legalName', 'currency', 'invoiceType']), response: ENTERPRISE },
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
            legalName,
            taxId: trim(body.taxId),
            address: trim(body.address),
            billingEmail: typeof body.billingEmail === 'string' ? body.billingEmail.trim().toLowerCase() : null,
            phone: trim(body.phone),
            currency: body.currency,
            invoiceType: body.invoiceType,
            creditLimitMinor: body.creditLimitMinor ?? null,
            bankName: trim(body.bankName),
            iban: body.iban ?? null,
            bic: body.bic ?? null,
          },
          auth.accountId,
        );
        // The invoices to come name these details (the billing profile the monthly job reads).
        await profileFromEnterprise(q, org.id, {
          legalName,
          bankName: trim(body.bankName),
          iban: body.iban ?? null,
          bic: body.bic ?? null,
          creditLimitMinor: body.creditLimitMinor ?? null,
          currency: body.currency,
        });
        const after = await detailsOf(q, org, canEdit);
        await audit(q, req, { action: 'update', entity: 'enterprise', entityId: org.id, before, after });
        // Invoicing reads these details: a change is an event others may follow (no bank details in the event).
        await appendEvents(q, [
          { orgId: org.id, type: 'org', subtype: 'enterprise_updated', subject: org.code, data: { currency: after.currency, invoiceType: after.invoiceType } },
        ]);
        return after;
      });
    },
  }),
]);

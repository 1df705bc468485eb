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
import { memberOrg, type OrgRow } from './org-repo.js';

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

const COLUMNS = `legal_name AS "legalName", tax_id AS "taxId", address, billing_email AS "billingEmail", phone, currency, invoice_type AS "invoiceType",
  credit_limit_minor::float8 AS "creditLimitMinor", bank_name AS "bankName", iban, bic, updated_at AS "updatedAt"`;

/** The organisation (one the caller is an active member of) and what the caller's role there may do with its details. */
async function orgFor(q: Queryable, accountId: string, code: string, action: 'read' | 'update'): Promise<{ org: OrgRow; canEdit: boolean }> {
  const org = await memberOrg(q, accountId, code);
  if (!org) throw notFound('organisation', code);
  const role = (await q.query<{ role: string }>('SELECT role FROM memberships WHERE account_id = $1 AND org_id = $2', [accountId, org.id])).rows[0].role;
  const ability = defineAbilityFor(role);
  if (!ability.can(action, 'enterprise')) throw new ApiError(403, CODES.permissionDenied);
  return { org, canEdit: ability.can('update', 'enterprise') };
}

async function detailsOf(q: Queryable, org: OrgRow, canEdit: boolean): Promise<Record<string, unknown> & { currency: string; invoiceType: string }> {
  const row = (await q.query<Record<string, unknown>>(`SELECT ${COLUMNS} FROM enterprises WHERE org_id = $1`, [org.id])).rows[0];
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
        await q.query('SELECT id FROM organisations WHERE id = $1 FOR UPDATE', [org.id]);
        const before = (await q.query<Record<string, unknown>>(`SELECT ${COLUMNS} FROM enterprises WHERE org_id = $1`, [org.id])).rows[0] ?? null;
        // A settlement customer's legal name is what its invoices were issued to: it stays (0133).
        if (org.settlement && before && before.legalName !== legalName) throw new ApiError(400, CODES.orgSettlementName);
        const values = [
          org.id, legalName, trim(body.taxId), trim(body.address), typeof body.billingEmail === 'string' ? body.billingEmail.trim().toLowerCase() : null,
          trim(body.phone), body.currency, body.invoiceType, body.creditLimitMinor ?? null, trim(body.bankName), body.iban ?? null, body.bic ?? null, auth.accountId,
        ];
        await q.query(
          `INSERT INTO enterprises (org_id, legal_name, tax_id, address, billing_email, phone, currency, invoice_type, credit_limit_minor, bank_name, iban, bic, updated_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
           ON CONFLICT (org_id) DO UPDATE SET legal_name = EXCLUDED.legal_name, tax_id = EXCLUDED.tax_id, address = EXCLUDED.address,
             billing_email = EXCLUDED.billing_email, phone = EXCLUDED.phone, currency = EXCLUDED.currency, invoice_type = EXCLUDED.invoice_type,
             credit_limit_minor = EXCLUDED.credit_limit_minor, bank_name = EXCLUDED.bank_name, iban = EXCLUDED.iban, bic = EXCLUDED.bic,
             updated_by = EXCLUDED.updated_by, updated_at = now()`,
          values,
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

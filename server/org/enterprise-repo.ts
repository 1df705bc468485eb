/** The SQL of an organisation's enterprise and settlement details (SPEC.md section 7, Organisations and users). */
import type { Queryable } from '../db/db.js';

const COLUMNS = `legal_name AS "legalName", tax_id AS "taxId", address, billing_email AS "billingEmail", phone, currency, invoice_type AS "invoiceType",
  credit_limit_minor::float8 AS "creditLimitMinor", bank_name AS "bankName", iban, bic, updated_at AS "updatedAt"`;

/** An organisation's saved details; undefined when none are saved. */
export async function enterpriseOf(q: Queryable, orgId: string): Promise<Record<string, unknown> | undefined> {
  return (await q.query<Record<string, unknown>>(`SELECT ${COLUMNS} FROM enterprises WHERE org_id = $1`, [orgId])).rows[0];
}

/** The details as saved. */
export interface EnterpriseValues {
  legalName: string;
  taxId: unknown;
  address: unknown;
  billingEmail: string | null;
  phone: unknown;
  currency: unknown;
  invoiceType: unknown;
  creditLimitMinor: unknown;
  bankName: unknown;
  iban: unknown;
  bic: unknown;
}

/** Save an organisation's details (insert or replace), by whom. */
export async function saveEnterprise(q: Queryable, orgId: string, v: EnterpriseValues, accountId: string): Promise<void> {
  await q.query(
    `INSERT INTO enterprises (org_id, legal_name, tax_id, address, billing_email, phone, currency, invoice_type, credit_limit_minor, bank_name, iban, bic, updated_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (org_id) DO UPDATE SET legal_name = EXCLUDED.legal_name, tax_id = EXCLUDED.tax_id, address = EXCLUDED.address,
       billing_email = EXCLUDED.billing_email, phone = EXCLUDED.phone, currency = EXCLUDED.currency, invoice_type = EXCLUDED.invoice_type,
       credit_limit_minor = EXCLUDED.credit_limit_minor, bank_name = EXCLUDED.bank_name, iban = EXCLUDED.iban, bic = EXCLUDED.bic,
       updated_by = EXCLUDED.updated_by, updated_at = now()`,
    [orgId, v.legalName, v.taxId, v.address, v.billingEmail, v.phone, v.currency, v.invoiceType, v.creditLimitMinor, v.bankName, v.iban, v.bic, accountId],
  );
}

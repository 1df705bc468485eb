/**
 * The meta-schema of x-admin (docs/schemas.md, "x-admin"): every key the engine reads, and no other, so a typo
 * ("stroage", "sortabel") stops the start with the file and the key instead of passing silently or crashing later.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { LANGUAGES } from '../../common/limits.js';
import { MENU_GROUPS, SCHEMA_ACTIONS } from '../../common/resources.js';
import { ROLES } from '../../common/roles.js';

const str = { type: 'string', minLength: 1 };
const strings = { type: 'array', items: str };
const call = { type: 'string', pattern: '^(GET|POST|PUT|PATCH|DELETE) /api/[a-z]+/\\S+$' };
const closed = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', additionalProperties: false, required, properties });
const form = closed({ call, fields: strings, optional: strings, uiSchema: { type: 'object' } }, ['call', 'fields']);
const labels = closed(
  {
    title: str,
    one: str,
    fields: { type: 'object', additionalProperties: str },
    enum: { type: 'object', additionalProperties: { type: 'object', additionalProperties: str } },
    sections: { type: 'object', additionalProperties: str },
  },
  ['title', 'one', 'fields'],
);

export const X_ADMIN_META = closed(
  {
    resource: str,
    subject: str,
    permissions: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(ROLES.map((r) => [r, { type: 'array', items: { enum: [...SCHEMA_ACTIONS] } }])),
    },
    menu: closed({ group: { enum: [...MENU_GROUPS] } }, ['group']),
    storage: { enum: ['generic'] },
    translations: { type: 'object', additionalProperties: false, properties: Object.fromEntries(LANGUAGES.map((l) => [l, labels])) },
    i18n: str,
    table: str,
    unique: { type: 'array', items: { anyOf: [str, { type: 'array', minItems: 1, items: str }] } },
    key: str,
    list: closed(
      {
        call,
        columns: strings,
        defaultColumns: strings,
        defaultSort: closed({ field: str, order: { enum: ['asc', 'desc'] } }, ['field', 'order']),
        sortable: strings,
        filters: strings,
        filterOptions: { type: 'object', additionalProperties: call },
        ranges: strings,
        search: strings,
        requiredRange: closed({ field: str, maxDays: { type: 'integer', minimum: 1 } }, ['field', 'maxDays']),
        bulk: closed({ field: str, param: str, max: { type: 'integer', minimum: 1 } }, ['field', 'param', 'max']),
      },
      ['call', 'columns', 'defaultSort', 'sortable', 'filters'],
    ),
    show: closed({ call, sections: { type: 'array', items: closed({ key: str, fields: strings }, ['key', 'fields']) } }, ['call', 'sections']),
    create: form,
    edit: form,
  },
  ['resource', 'subject', 'i18n', 'table', 'key', 'list'],
);

const check = new Ajv({ allErrors: false, strict: false }).compile(X_ADMIN_META);

/** One sentence on what is wrong with a schema's x-admin, or null when it keeps to the meta-schema. */
export function xAdminProblem(xAdmin: unknown): string | null {
  if (check(xAdmin)) return null;
  const e = check.errors![0] as ErrorObject;
  const at = `x-admin${e.instancePath.replace(/\//g, '.')}`;
  if (e.keyword === 'additionalProperties') return `${at} has the unknown key "${String(e.params.additionalProperty)}"`;
  if (e.keyword === 'required') return `${at} lacks "${String(e.params.missingProperty)}"`;
  if (e.keyword === 'enum') return `${at} must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
  return `${at} ${e.message ?? 'is wrong'}`;
}

const checkAll = new Ajv({ allErrors: true, strict: false }).compile(X_ADMIN_META);

/**
 * The first misspelt key of a schema's x-admin ("sortabel"), outside its labels and rights (whose keys are languages
 * and roles, named better by defineResource): the cause to name when the checks of the keys it knows fail.
 */
export function misspeltKey(xAdmin: unknown): string | null {
  if (checkAll(xAdmin)) return null;
  const e = checkAll.errors!.find((x) => x.keyword === 'additionalProperties' && !/^\/(translations|permissions)(\/|$)/.test(x.instancePath));
  return e ? `x-admin${e.instancePath.replace(/\//g, '.')} has the unknown key "${String(e.params.additionalProperty)}"` : null;
}

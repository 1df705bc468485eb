/**
 * Resources declared by schemas/*.json (docs/schemas.md): a JSON Schema draft-07 of the resource's fields, plus the
 * x-admin keyword with what the console and the routes need. Both sides derive from here, so a rule lives once:
 * the list query a route validates, the columns a page shows, the filters both accept.
 */
import { PAGING_PROPERTIES } from './limits.js';
import type { Subject } from './permissions.js';
import { SUBJECTS } from './permissions.js';

type JsonSchema = Record<string, unknown> & { type?: string | string[]; properties?: Record<string, JsonSchema>; enum?: unknown[]; pattern?: string };

export interface ResourceList {
  /** "METHOD /api/service/path" of SPEC.md section 7. */
  call: string;
  columns: string[];
  /** The columns shown until the person chooses (default: all of columns). */
  defaultColumns?: string[];
  defaultSort: { field: string; order: 'asc' | 'desc' };
  sortable: string[];
  /** Fields filtered by equality (an array field: contains the value). */
  filters: string[];
  /** Time or number fields filtered by a from-to range. */
  ranges?: string[];
  /** Fields searched by the whole value or its trailing characters (SPEC.md section 5: more than one). */
  search?: string[];
  /** A time window the list cannot do without, at most maxDays long (partitioned tables: CDRs). */
  requiredRange?: { field: string; maxDays: number };
  /** A bulk search: one entry per line, at most max (SPEC.md section 5: ICCID list up to 1000). */
  bulk?: { field: string; param: string; max: number };
}

export interface ResourceForm {
  /** "METHOD /api/service/path" of SPEC.md section 7. */
  call: string;
  /** The SPEC.md section 2 screen of the form. */
  screen: string;
  /** The fields a person fills, in order; all required unless named in optional. */
  fields: string[];
  optional?: string[];
  /** RJSF uiSchema: widgets and layout (labels come from the translations). */
  uiSchema?: Record<string, unknown>;
}

export interface ResourceAdmin {
  resource: string;
  subject: Exclude<Subject, 'all'>;
  /** The SPEC.md section 2 screen it fills. */
  screen: string;
  /** Prefix of its translation keys: <i18n>.fields.<field>, <i18n>.enum.<field>.<value>. */
  i18n: string;
  table: string;
  /** The field that names a row in calls and links. */
  key: string;
  list: ResourceList;
  create?: ResourceForm;
}

export interface ResourceSchema extends JsonSchema {
  $id: string;
  properties: Record<string, JsonSchema>;
  'x-admin': ResourceAdmin;
}

/** Check a resource schema's x-admin against its own fields; a wrong name fails loudly when it is loaded. */
export function defineResource(schema: unknown): ResourceSchema {
  const r = schema as ResourceSchema;
  const fail = (what: string) => {
    throw new Error(`schemas/${r.$id ?? '?'}.json: ${what}`);
  };
  const admin = r['x-admin'];
  if (!admin) fail('has no x-admin');
  if (!(admin.subject in SUBJECTS)) fail(`x-admin.subject "${admin.subject}" is not a permission subject`);
  const known = (f: string, where: string) => {
    if (!r.properties?.[f]) fail(`${where} names "${f}", which is not a property`);
  };
  known(admin.key, 'x-admin.key');
  const l = admin.list;
  for (const f of l.columns) known(f, 'x-admin.list.columns');
  for (const f of l.defaultColumns ?? []) if (!l.columns.includes(f)) fail(`x-admin.list.defaultColumns names "${f}", which is not in columns`);
  for (const f of l.sortable) known(f, 'x-admin.list.sortable');
  for (const f of l.filters) known(f, 'x-admin.list.filters');
  for (const f of l.ranges ?? []) known(f, 'x-admin.list.ranges');
  for (const f of l.search ?? []) known(f, 'x-admin.list.search');
  if (l.bulk) known(l.bulk.field, 'x-admin.list.bulk');
  if (l.requiredRange && !(l.ranges ?? []).includes(l.requiredRange.field)) fail('x-admin.list.requiredRange must name one of ranges');
  known(l.defaultSort.field, 'x-admin.list.defaultSort');
  for (const f of admin.create?.fields ?? []) known(f, 'x-admin.create.fields');
  for (const f of admin.create?.optional ?? []) if (!admin.create!.fields.includes(f)) fail(`x-admin.create.optional names "${f}", which is not in fields`);
  return r;
}

/** A property's schema without null, for a filter value. */
function nonNull(p: JsonSchema): JsonSchema {
  const type = Array.isArray(p.type) ? p.type.filter((t) => t !== 'null') : p.type;
  const { format: _f, ...rest } = p;
  return { ...rest, type: Array.isArray(type) && type.length === 1 ? type[0] : type };
}

/** The body (or query) a list call accepts: paging, sorting, filters, search and bulk search, all checked. */
export function listQuerySchema(r: ResourceSchema): JsonSchema {
  const l = r['x-admin'].list;
  const props: Record<string, JsonSchema> = {
    ...PAGING_PROPERTIES,
    cursor: { type: 'string', maxLength: 400 },
    sort: { type: 'string', enum: l.sortable },
    order: { type: 'string', enum: ['asc', 'desc'] },
  };
  for (const f of l.filters) {
    const p = nonNull(r.properties[f]);
    props[f] = p.type === 'array' ? (p.items as JsonSchema) : p;
  }
  for (const f of l.ranges ?? []) {
    props[`${f}From`] = { type: 'string', format: 'date-time' };
    props[`${f}To`] = { type: 'string', format: 'date-time' };
  }
  if (l.search?.length) {
    props.search = {
      type: 'object',
      required: ['field', 'value'],
      additionalProperties: false,
      properties: { field: { type: 'string', enum: l.search }, value: { type: 'string', minLength: 2, maxLength: 64, pattern: '\\S' } },
    };
  }
  if (l.bulk) {
    const item = nonNull(r.properties[l.bulk.field]);
    props[l.bulk.param] = { type: 'array', minItems: 1, maxItems: l.bulk.max, items: item };
  }
  const required = l.requiredRange ? [`${l.requiredRange.field}From`, `${l.requiredRange.field}To`] : [];
  return { type: 'object', additionalProperties: false, required, properties: props };
}

/** The first day-count rule a from–to window breaks, as a field and rule for the 400 answer; null when it is fine. */
export function rangeProblem(r: ResourceSchema, body: Record<string, unknown>): { field: string; rule: string; params: Record<string, unknown> } | null {
  const req = r['x-admin'].list.requiredRange;
  if (!req) return null;
  const from = Date.parse(String(body[`${req.field}From`]));
  const to = Date.parse(String(body[`${req.field}To`]));
  if (to < from) return { field: `${req.field}To`, rule: 'notBefore', params: {} };
  if (to - from > req.maxDays * 86_400_000) return { field: `${req.field}To`, rule: 'maxSpanDays', params: { days: req.maxDays } };
  return null;
}

/** The body a create call accepts: the form's fields with their own rules, nothing else. */
export function createBodySchema(r: ResourceSchema): JsonSchema & { properties: Record<string, JsonSchema>; required: string[] } {
  const form = r['x-admin'].create;
  if (!form) throw new Error(`schemas/${r.$id}.json has no x-admin.create`);
  return {
    type: 'object',
    additionalProperties: false,
    required: form.fields.filter((f) => !(form.optional ?? []).includes(f)),
    properties: Object.fromEntries(form.fields.map((f) => [f, r.properties[f]])),
  };
}

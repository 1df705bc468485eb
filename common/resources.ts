/**
 * Resources declared by schemas/*.json (docs/schemas.md): a JSON Schema draft-07 of the resource's fields, plus the
 * x-admin keyword with what the console and the routes need. Both sides derive from here, so a rule lives once:
 * the list query a route validates, the columns a page shows, the filters both accept.
 */
import { LANGUAGES, PAGING_PROPERTIES, type Language } from './limits.js';
import type { Subject } from './permissions.js';
import { SUBJECTS } from './permissions.js';
import { ROLES, type Role } from './roles.js';

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
  /** For a filter without an enum: the "GET /api/…" call answering the values to choose from (networks seen). */
  filterOptions?: Record<string, string>;
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
  /** The fields a person fills, in order; all required unless named in optional. */
  fields: string[];
  optional?: string[];
  /** RJSF uiSchema: widgets and layout (labels come from the translations). */
  uiSchema?: Record<string, unknown>;
}

/** A detail page: the record's call and its fields in titled sections (<i18n>.sections.<key>). */
export interface ResourceShow {
  call: string;
  sections: Array<{ key: string; fields: string[] }>;
}

/** The menu groups of the console's side menu (src/shell/routes.ts). */
export const MENU_GROUPS = ['dashboard', 'sim', 'finance', 'message', 'autoflow', 'cdr', 'developer', 'settings', 'tasks'] as const;
export type MenuGroup = (typeof MENU_GROUPS)[number];

/** The actions a schema may grant on a subject of its own. */
export const SCHEMA_ACTIONS = ['read', 'create', 'update', 'delete', 'manage'] as const;
export type SchemaAction = (typeof SCHEMA_ACTIONS)[number];

export interface ResourceAdmin {
  resource: string;
  /** A subject of common/permissions.ts, or a new one whose rights the schema declares in permissions. */
  subject: Exclude<Subject, 'all'> | string;
  /**
   * Rights on a subject of the schema's own, role by role (a role not named has none). Only for a subject that
   * common/permissions.ts does not know: a schema never widens the auditors' file.
   */
  permissions?: Partial<Record<Role, SchemaAction[]>>;
  /** A place in the side menu: generic pages at /{lang}/r/<resource> (list, create, show/:id, edit/:id). */
  menu?: { group: MenuGroup };
  /** "generic": the server stores it in table and answers its calls itself (docs/schemas.md). */
  storage?: 'generic';
  /** Labels carried by the schema itself, merged into the console's translations under <i18n>. */
  translations?: Partial<Record<Language, Record<string, unknown>>>;
  /** Prefix of its translation keys: <i18n>.fields.<field>, <i18n>.enum.<field>.<value>. */
  i18n: string;
  table: string;
  /** Values unique within an organisation, each a field or several (a generic resource's derived table declares them). */
  unique?: Array<string | string[]>;
  /** The field that names a row in calls and links. */
  key: string;
  list: ResourceList;
  create?: ResourceForm;
  show?: ResourceShow;
  edit?: ResourceForm;
}

export interface ResourceSchema extends JsonSchema {
  $id: string;
  properties: Record<string, JsonSchema>;
  'x-admin': ResourceAdmin;
}

/** Top-level keywords of rules across fields, which the engine does not honour and so refuses. */
export const UNSUPPORTED_TOP_LEVEL = ['if', 'then', 'else', 'allOf', 'anyOf', 'oneOf', 'not', 'dependentRequired', 'dependentSchemas', 'dependencies'] as const;

/** Check a resource schema's x-admin against its own fields; a wrong name fails loudly when it is loaded. */
export function defineResource(schema: unknown, file?: string): ResourceSchema {
  const r = schema as ResourceSchema;
  const fail = (what: string) => {
    throw new Error(`${file ?? `schemas/${r.$id ?? '?'}.json`}: ${what}`);
  };
  const admin = r['x-admin'];
  if (!admin) fail('has no x-admin');
  // Rules across fields are not derived into the forms and lists: refused rather than silently dropped.
  for (const k of UNSUPPORTED_TOP_LEVEL)
    if (k in r) fail(`the top-level "${k}" is not supported (rules across fields reach neither the forms nor the API); put each rule on its field`);
  if (admin.menu && !admin.translations) fail('x-admin.translations is required for a resource with a menu place (en-US at least)');
  if (admin.permissions) {
    if (admin.subject in SUBJECTS || admin.subject === 'all')
      fail(`x-admin.permissions may only declare a subject of its own; "${admin.subject}" is in common/permissions.ts`);
    for (const [role, actions] of Object.entries(admin.permissions)) {
      if (!(ROLES as readonly string[]).includes(role)) fail(`x-admin.permissions names the role "${role}", which does not exist`);
      for (const a of actions ?? [])
        if (!(SCHEMA_ACTIONS as readonly string[]).includes(a)) fail(`x-admin.permissions.${role} names the action "${a}"; use ${SCHEMA_ACTIONS.join(', ')}`);
    }
  } else if (!(admin.subject in SUBJECTS)) fail(`x-admin.subject "${admin.subject}" is not a permission subject (declare x-admin.permissions for a new one)`);
  if (admin.menu && !(MENU_GROUPS as readonly string[]).includes(admin.menu.group))
    fail(`x-admin.menu.group "${admin.menu.group}" is not one of ${MENU_GROUPS.join(', ')}`);
  if (admin.menu && !/^[a-z][a-zA-Z0-9-]{1,39}$/.test(admin.resource))
    fail('x-admin.resource must be a short name of letters, digits and dashes (it is part of the address)');
  for (const [lang, labels] of Object.entries(admin.translations ?? {})) {
    if (!(LANGUAGES as readonly string[]).includes(lang)) fail(`x-admin.translations names "${lang}", not one of ${LANGUAGES.join(', ')}`);
    // A schema that brings its labels brings all of them: every field and enum value, the title, every section.
    const l = labels as {
      title?: string;
      one?: string;
      fields?: Record<string, string>;
      enum?: Record<string, Record<string, string>>;
      sections?: Record<string, string>;
    };
    const missing = [
      ...(['title', 'one'] as const).filter((k) => !l[k]),
      ...Object.keys(r.properties)
        .filter((f) => !l.fields?.[f])
        .map((f) => `fields.${f}`),
      ...Object.entries(r.properties).flatMap(([f, p]) => (p.enum ?? []).filter((v) => !l.enum?.[f]?.[String(v)]).map((v) => `enum.${f}.${String(v)}`)),
      ...(admin.show?.sections ?? []).filter((s) => !l.sections?.[s.key]).map((s) => `sections.${s.key}`),
    ];
    if (missing.length) fail(`x-admin.translations.${lang} lacks ${missing.join(', ')}`);
  }
  if (admin.translations && !admin.translations['en-US']) fail('x-admin.translations must hold en-US, the fallback language');
  const callOk = (call: string | undefined, where: string) => {
    if (call !== undefined && !/^(GET|POST|PUT|PATCH|DELETE) \/api\/[a-z]+\/\S+$/.test(call)) fail(`${where} must read "METHOD /api/<service>/<path>"`);
  };
  const known = (f: string, where: string) => {
    if (!r.properties?.[f]) fail(`${where} names "${f}", which is not a property`);
  };
  known(admin.key, 'x-admin.key');
  for (const u of admin.unique ?? []) for (const f of ([] as string[]).concat(u)) known(f, 'x-admin.unique');
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
  callOk(l.call, 'x-admin.list.call');
  for (const [f, call] of Object.entries(l.filterOptions ?? {})) {
    if (!l.filters.includes(f)) fail(`x-admin.list.filterOptions names "${f}", which is not in filters`);
    callOk(call, `x-admin.list.filterOptions.${f}`);
  }
  for (const kind of ['create', 'edit'] as const) {
    const form = admin[kind];
    if (!form) continue;
    callOk(form.call, `x-admin.${kind}.call`);
    for (const f of form.fields) known(f, `x-admin.${kind}.fields`);
    for (const f of form.optional ?? []) if (!form.fields.includes(f)) fail(`x-admin.${kind}.optional names "${f}", which is not in fields`);
  }
  if (admin.show) {
    callOk(admin.show.call, 'x-admin.show.call');
    for (const s of admin.show.sections) for (const f of s.fields) known(f, `x-admin.show.sections.${s.key}`);
  }
  for (const kind of ['show', 'edit'] as const) if (admin[kind] && !admin[kind]!.call.includes(':id')) fail(`x-admin.${kind}.call must name the record as :id`);
  return r;
}

/** A property's schema without null, for a filter value. */
function nonNull(p: JsonSchema): JsonSchema {
  const type = Array.isArray(p.type) ? p.type.filter((t) => t !== 'null') : p.type;
  // A filter has no default value (ajv would fill one in and filter by it).
  const { format: _f, default: _d, ...rest } = p;
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

type FormBody = JsonSchema & { properties: Record<string, JsonSchema>; required: string[] };

/** An object of some of a resource's fields with their own rules, all required but the optional ones. */
export function fieldsSchema(r: ResourceSchema, fields: string[], optional: string[] = []): FormBody {
  return {
    type: 'object',
    additionalProperties: false,
    required: fields.filter((f) => !optional.includes(f)),
    properties: Object.fromEntries(fields.map((f) => [f, r.properties[f]])),
  };
}

/** The body a create or edit call accepts: the form's fields with their own rules, nothing else. */
export function formBodySchema(r: ResourceSchema, kind: 'create' | 'edit'): FormBody {
  const form = r['x-admin'][kind];
  if (!form) throw new Error(`schemas/${r.$id}.json has no x-admin.${kind}`);
  const body = fieldsSchema(r, form.fields, form.optional);
  if (kind === 'create') return body;
  // An edit changes what it names: a field's default value would otherwise overwrite what is stored.
  return { ...body, properties: Object.fromEntries(Object.entries(body.properties).map(([f, { default: _d, ...p }]) => [f, p])) };
}

/** The body a create call accepts. */
export const createBodySchema = (r: ResourceSchema): FormBody => formBodySchema(r, 'create');

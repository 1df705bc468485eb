/**
 * Input that no route may see, refused once at the edge for every route: text that PostgreSQL cannot store (the NUL
 * character) or that is not Unicode (a lone surrogate), in the body, the query, the path parameters or the headers
 * the server reads. And the rule every declared input keeps: each number, text and list has a bound, so that 1e308,
 * a 1 MB string or 100,000 items are refused by the schema with the field's name instead of reaching SQL.
 */
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { invalid } from './api-error.js';

/** NUL, or a surrogate half without its other half. */
// eslint-disable-next-line no-control-regex -- finding the NUL character is the point
const UNSAFE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The dotted path of the first text (value or key) that holds an unsafe character, or null. */
export function unsafeTextAt(value: unknown, path = ''): string | null {
  // Iterative, so that a body nested a thousand deep is walked without recursion.
  const stack: Array<[unknown, string]> = [[value, path]];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSAFE.test(v)) return at;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], at ? `${at}.${i}` : String(i)]);
    } else if (v && typeof v === 'object' && !Buffer.isBuffer(v)) {
      for (const [k, child] of Object.entries(v)) {
        const childAt = at ? `${at}.${k}` : k;
        if (UNSAFE.test(k)) return childAt;
        stack.push([child, childAt]);
      }
    }
  }
  return null;
}

/** Headers the server reads into queries (SPEC.md section 7). */
const READ_HEADERS = ['partnercode', 'tenantid', 'timezone', 'language'];

/** The first unsafe text of a request, as the field to name. */
export function unsafeInputOf(req: Pick<FastifyRequest, 'params' | 'query' | 'body' | 'headers'>): string | null {
  for (const h of READ_HEADERS) {
    const v = req.headers[h];
    if (v !== undefined && unsafeTextAt(v) !== null) return h;
  }
  return unsafeTextAt(req.params) ?? unsafeTextAt(req.query) ?? unsafeTextAt(req.body, '');
}

type Schema = Record<string, unknown>;
const typesOf = (s: Schema) => ([] as unknown[]).concat(s.type ?? []);

/**
 * The places in an input schema where a value has no bound: a number without minimum and maximum, a text without
 * maxLength (unless enum, const or a fixed format), a list without maxItems, an object open to any key without
 * maxProperties. Empty when every input is bounded.
 */
export function unboundedInputs(schema: unknown, at = ''): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as Schema;
  const out: string[] = [];
  const types = typesOf(s);
  const closed = 'enum' in s || 'const' in s;
  if (!closed) {
    if ((types.includes('number') || types.includes('integer')) && (typeof s.minimum !== 'number' || typeof s.maximum !== 'number'))
      out.push(`${at || '(root)'}: number without minimum and maximum`);
    if (types.includes('string') && typeof s.maxLength !== 'number' && !BOUNDED_FORMATS.has(String(s.format)) && !boundedPattern(s.pattern))
      out.push(`${at || '(root)'}: text without maxLength`);
    if (types.includes('array') && typeof s.maxItems !== 'number') out.push(`${at || '(root)'}: list without maxItems`);
    // Path parameters are the router's own object: only the names in the path exist.
    if (types.includes('object') && at !== PARAMS_ROOT && s.additionalProperties !== false && typeof s.maxProperties !== 'number')
      out.push(`${at || '(root)'}: object open to any field without maxProperties`);
  }
  for (const [k, child] of Object.entries((s.properties as Record<string, unknown>) ?? {})) out.push(...unboundedInputs(child, at ? `${at}.${k}` : k));
  if (s.items && typeof s.items === 'object') out.push(...unboundedInputs(s.items, `${at}[]`));
  if (s.additionalProperties && typeof s.additionalProperties === 'object') out.push(...unboundedInputs(s.additionalProperties, `${at}.*`));
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) for (const sub of (s[key] as unknown[]) ?? []) out.push(...unboundedInputs(sub, at));
  return out;
}
/** A pattern anchored at both ends with no open-ended repetition (^89[0-9]{17,18}$): it bounds the length itself. */
function boundedPattern(pattern: unknown): boolean {
  return typeof pattern === 'string' && pattern.startsWith('^') && /[^\\]\$$/.test(pattern) && !/[*+]|\{\d+,\}/.test(pattern);
}
/** The path given for the root of a route's path-parameter schema. */
export const PARAMS_ROOT = '(params)';
/** Formats whose every valid value is short (ajv-formats checks them in full). */
const BOUNDED_FORMATS = new Set(['date', 'date-time', 'time', 'uuid', 'ipv4', 'ipv6']);

/** A JSON body that cannot be read, told apart: an error whose message key (errors.<key>) says what is wrong. */
export class BodyError extends Error {
  readonly statusCode = 400;
  constructor(readonly key: 'bodyRequired' | 'bodyNotJson' | 'bodyForbiddenKey') {
    super(key);
  }
}

/** Does a parsed body carry a key that would poison prototypes if merged (__proto__, constructor.prototype)? */
function poisoned(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    if (Object.prototype.hasOwnProperty.call(v, '__proto__')) return true;
    const ctor = (v as Record<string, unknown>).constructor;
    if (Object.prototype.hasOwnProperty.call(v, 'constructor') && ctor && typeof ctor === 'object' && Object.prototype.hasOwnProperty.call(ctor, 'prototype'))
      return true;
    stack.push(...Object.values(v));
  }
  return false;
}

/** Parse a JSON body, naming what is wrong: empty, not JSON, or a prototype-poisoning key. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new BodyError('bodyRequired');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BodyError('bodyNotJson');
  }
  if (poisoned(value)) throw new BodyError('bodyForbiddenKey');
  return value;
}

/** Refuse unsafe text before any handler, permission query or validation sees it. */
export default fp(async (app) => {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    try {
      // The body as sent, for the public API's log (validation adds defaults to the parsed one).
      req.rawBody = body as string;
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addHook('preValidation', async (req) => {
    const field = unsafeInputOf(req);
    if (field !== null) throw invalid(field || 'body', 'unsafeText');
  });
});

declare module 'fastify' {
  interface FastifyRequest {
    /** A JSON body's text as it arrived. */
    rawBody?: string;
  }
}

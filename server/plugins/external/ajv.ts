/**
 * Validation: bodies are checked strictly (no type coercion, unknown fields rejected with a 400: docs/decisions.md);
 * query strings and path parameters arrive as text and are coerced to their declared types.
 */
import fp from 'fastify-plugin';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

const ajvFor = (coerce: boolean) => {
  const ajv = new Ajv({
    removeAdditional: false,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    allErrors: false,
    verbose: true,
    keywords: ['x-admin', 'x-rule', 'x-money', 'x-percent', 'x-country'],
  });
  const add = ((addFormats as unknown as { default?: unknown }).default ?? addFormats) as (a: Ajv) => void;
  add(ajv);
  return ajv;
};

export default fp(
  async (app) => {
    const strictAjv = ajvFor(false);
    const coercingAjv = ajvFor(true);
    app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema));
  },
  { name: 'ajv' },
);

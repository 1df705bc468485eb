/**
 * Every error answered in the envelope, in the caller's language: our ApiErrors, bodies that cannot be read, failed
 * validation (named by field and rule, http/error-mapping.ts), a too large upload, other 4xx; a 5xx is logged and the
 * caller gets only a reference.
 */
import fp from 'fastify-plugin';
import type { FastifyError } from 'fastify';
import { CODES, messageKeyOf } from '../../../common/errors.js';
import { LIMITS } from '../../../common/limits.js';
import { translate } from '../../../common/i18n.js';
import { ApiError } from '../../http/api-error.js';
import { bodyProblemOf, describeAjvError } from '../../http/error-mapping.js';

export default fp(
  async (app) => {
    app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
      const lang = req.lang ?? 'en-US';
      // A field a schema labels itself (a resource of SCHEMAS_DIR) is named by that label.
      const labels = req.routeOptions?.config?.routeDef?.labels?.[lang];
      const label = (field: string) => labels?.[field] ?? field;
      if (err instanceof ApiError) {
        const { ruleKey, entityKey, ...rest } = err.params as { ruleKey?: string; entityKey?: string; field?: string };
        const named = rest.field ? { ...rest, field: label(rest.field) } : entityKey ? { ...rest, entity: translate(lang, `entities.${entityKey}`) } : rest;
        const params = ruleKey ? { ...named, rule: translate(lang, `rules.${ruleKey}`, rest) } : named;
        return reply.status(err.statusCode).send({
          status: { code: err.code, success: false, message: translate(lang, err.messageKey, params) },
          data: err.data ?? (ruleKey ? { field: rest.field, rule: ruleKey } : null),
        });
      }
      const fe = err as FastifyError;
      const bodyProblem = bodyProblemOf(fe, req.body);
      if (bodyProblem) {
        return reply.status(bodyProblem.status).send({
          status: { code: CODES.validation, success: false, message: translate(lang, `errors.${bodyProblem.key}`, { limit: `${Math.round((req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 0) / 1024)} KB` }) },
          data: { field: 'body', rule: bodyProblem.key },
        });
      }
      if (fe.validation && fe.validation.length > 0) {
        const v = fe.validation[0];
        const { field, rule, params } = describeAjvError(v as never, fe.validationContext);
        return reply.status(400).send({
          status: { code: CODES.validation, success: false, message: translate(lang, 'errors.validation', { field: label(field), rule: translate(lang, `rules.${rule}`, params) }) },
          data: { field, rule },
        });
      }
      if (fe.code === 'FST_REQ_FILE_TOO_LARGE') {
        const params = { limit: `${LIMITS.uploadBytes / (1024 * 1024)} MB` };
        return reply.status(400).send({
          status: { code: CODES.validation, success: false, message: translate(lang, 'errors.validation', { field: 'file', rule: translate(lang, 'rules.maximum', params) }) },
          data: { field: 'file', rule: 'maximum' },
        });
      }
      const status = fe.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        const code = status === 404 ? CODES.notFound : status === 429 ? CODES.tooManyRequests : CODES.badRequest;
        return reply.status(status).send({ status: { code, success: false, message: translate(lang, messageKeyOf(code), { minutes: 15 }) }, data: null });
      }
      // 5xx: log everything, tell the caller only a reference.
      req.log.error({ err }, 'request failed');
      return reply.status(500).send({ status: { code: CODES.internal, success: false, message: translate(lang, 'errors.internal', { ref: req.id }) }, data: null });
    });
  },
  { name: 'error-handler' },
);

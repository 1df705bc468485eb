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
import { lingerOnClose, readingStopped, sizeText } from '../../http/multipart.js';
import { ruleMessage, schemaMessage } from '../../../common/validation-messages.js';
import { formatMoney } from '../../../common/numbers.js';

/** A sum of money among a message's params: minor units and the currency, written in the caller's language. */
const isMoney = (v: unknown): v is { minor: number; currency: string } =>
  !!v && typeof v === 'object' && typeof (v as { minor?: unknown }).minor === 'number' && typeof (v as { currency?: unknown }).currency === 'string';
const written = (lang: string, params: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(params).map(([k, v]) => [k, isMoney(v) ? formatMoney(v.minor, v.currency, lang) : v]));

export default fp(
  async (app) => {
    app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
      const lang = req.lang ?? 'en-US';
      // A field a schema labels itself (a resource of SCHEMAS_DIR) is named by that label.
      const labels = req.routeOptions?.config?.routeDef?.labels?.[lang];
      // Else its label in common/locales (fields.<name>); an entry of a list ("notifications.0") by the list's label,
      // a field of an entry ("columns.0.enabled") by its own name's; a field with no label at all by its name.
      const label = (field: string) => {
        const names = field.split('.').filter((part) => !/^\d+$/.test(part));
        for (const name of [field, names.join('.'), names.at(-1)!]) {
          const found = labels?.[name] ?? translate(lang, '{{field}}', { field: name });
          if (found !== name) return found;
        }
        return field;
      };
      const say = (key: string, p?: Record<string, unknown>) => translate(lang, key, p);
      // A body refused part way (or by its declared length) is not read further: over HTTP/1.1 the answer closes the
      // connection, so that the rest of it is neither read nor taken for the next request. (HTTP/2 has no such header;
      // there the paused stream's flow control stops the sender.)
      const code = (err as FastifyError).code;
      const stopped = readingStopped(req.raw) || code === 'FST_ERR_CTP_BODY_TOO_LARGE' || code === 'FST_REQ_FILE_TOO_LARGE';
      if (stopped && req.raw.httpVersionMajor === 1) {
        reply.header('connection', 'close');
        lingerOnClose(req.raw.socket);
      }
      if (err instanceof ApiError) {
        const { ruleKey, entityKey, ...rest } = err.params as { ruleKey?: string; entityKey?: string; field?: string; seconds?: unknown };
        // Sums of money among the params are written in the caller's language ("At most €80.00 is left to credit").
        const named = written(
          lang,
          rest.field ? { ...rest, field: label(rest.field) } : entityKey ? { ...rest, entity: translate(lang, `entities.${entityKey}`) } : rest,
        );
        // A broken rule is said as a sentence naming the field ("Time zone must be an IANA time zone such as Europe/Berlin").
        const message = ruleKey ? ruleMessage(say, lang, label(rest.field ?? 'body'), ruleKey, rest) : translate(lang, err.messageKey, named);
        // A refusal for now (429, 503) says when to try again, in the header as in the message.
        if ((err.statusCode === 429 || err.statusCode === 503) && typeof rest.seconds === 'number' && !reply.hasHeader('retry-after'))
          reply.header('retry-after', String(rest.seconds));
        return reply.status(err.statusCode).send({
          status: { code: err.code, success: false, message },
          data: err.data ?? (ruleKey ? { field: rest.field, rule: ruleKey } : null),
        });
      }
      const fe = err as FastifyError;
      const bodyProblem = bodyProblemOf(fe, req.body);
      if (bodyProblem) {
        return reply.status(bodyProblem.status).send({
          status: {
            code: CODES.validation,
            success: false,
            message: translate(lang, `errors.${bodyProblem.key}`, { limit: sizeText(req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 0) }),
          },
          data: { field: 'body', rule: bodyProblem.key },
        });
      }
      if (fe.validation && fe.validation.length > 0) {
        const v = fe.validation[0];
        const { field, rule } = describeAjvError(v as never, fe.validationContext);
        // A keyword's failure is said as a sentence naming the field, with both ends of its range (validation-messages.ts);
        // a field with a rule of its own (x-rule) is said in that rule's words ("email" as the e-mail format's sentence).
        const parentSchema = (v as { parentSchema?: Record<string, unknown> }).parentSchema;
        const own = parentSchema?.['x-rule'] === rule && rule !== v.keyword;
        const unit = req.routeOptions?.config?.routeDef?.units?.[field]?.(req.body);
        const message = own
          ? ruleMessage(say, lang, label(field), rule)
          : schemaMessage(say, lang, label(field), { keyword: v.keyword, params: v.params, schema: parentSchema, unit });
        return reply.status(400).send({
          status: { code: CODES.validation, success: false, message },
          data: { field, rule },
        });
      }
      if (fe.code === 'FST_REQ_FILE_TOO_LARGE') {
        const params = { limit: `${LIMITS.uploadBytes / (1024 * 1024)} MB` };
        return reply.status(400).send({
          status: { code: CODES.validation, success: false, message: ruleMessage(say, lang, label('file'), 'maximum', params) },
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
      return reply
        .status(500)
        .send({ status: { code: CODES.internal, success: false, message: translate(lang, 'errors.internal', { ref: req.id }) }, data: null });
    });
  },
  { name: 'error-handler' },
);

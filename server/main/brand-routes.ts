/** Branding (SPEC.md section 1): the brand of the page host, loaded before sign-in. */
import { notFound } from '../http/api-error.js';
import { defineRoutes } from '../http/route.js';

export const brandRoutes = defineRoutes([
  {
    service: 'main',
    method: 'GET',
    path: '/brand/logo',
    permission: 'public',
    schema: {
      querystring: { type: 'object', required: ['url'], additionalProperties: false, properties: { url: { type: 'string', minLength: 1, maxLength: 253 } } },
      response: {
        type: 'object',
        properties: {
          partnerCode: { type: 'string' },
          variant: { type: 'string' },
          reportsEnabled: { type: 'boolean' },
          theme: {},
        },
      },
    },
    // The host may come with a port or a scheme; only the host name selects the brand. An unknown host (127.0.0.1,
    // a domain whose brand is not set up yet) gets the default brand whole, support and contact included.
    handler: async (req) => {
      const raw = (req.query as { url: string }).url.trim().toLowerCase();
      const host = raw.replace(/^[a-z]+:\/\//, '').split('/')[0].replace(/:\d+$/, '');
      const r = await req.server.db.query<{ partner_code: string; variant: string; reports_enabled: boolean; theme: unknown }>(
        'SELECT partner_code, variant, reports_enabled, theme FROM brands WHERE host = $1 OR is_default ORDER BY host = $1 DESC NULLS LAST LIMIT 1',
        [host],
      );
      const b = r.rows[0];
      if (!b) throw notFound('brand', host);
      return { partnerCode: b.partner_code, variant: b.variant, reportsEnabled: b.reports_enabled, theme: b.theme };
    },
  },
]);

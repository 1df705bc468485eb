/** Branding (SPEC.md section 1): the brand of the page host, loaded before sign-in. */
import { notFound } from '../http/api-error.js';
import { defineRoutes } from '../http/route.js';
import { obj, serviceRoutes, typed } from '../http/shapes.js';
import { brandOfHost } from './brand-repo.js';

export const brandRoutes = defineRoutes([
  serviceRoutes('main')('GET', '/brand/logo', 'public', {
    schema: {
      querystring: obj({ url: { type: 'string', minLength: 1, maxLength: 253 } }, ['url']),
      response: typed({ partnerCode: 'string', variant: 'string', reportsEnabled: 'boolean', theme: {} }),
    },
    // The host may come with a port or a scheme; only the host name selects the brand. An unknown host (127.0.0.1,
    // a domain whose brand is not set up yet) gets the default brand whole, support and contact included.
    handler: async (req) => {
      const raw = (req.query as { url: string }).url.trim().toLowerCase();
      const host = raw
        .replace(/^[a-z]+:\/\//, '')
        .split('/')[0]
        .replace(/:\d+$/, '');
      const b = await brandOfHost(req.server.db, host);
      if (!b) throw notFound('brand', host);
      return { partnerCode: b.partner_code, variant: b.variant, reportsEnabled: b.reports_enabled, theme: b.theme };
    },
  }),
]);

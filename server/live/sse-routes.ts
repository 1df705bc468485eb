/**
 * GET /api/identity/sse/connect?userId=…: the browser's server-sent-events stream (SPEC.md section 7). It carries
 * the events of live_events addressed to the signed-in account or to its current organisation: rights changed
 * (the console refreshes its rules), task progress (the task center: one's own tasks, and every member's to those
 * who see the organisation's tasks). A comment line every 25 s keeps proxies open.
 *
 * What a stream may hear is decided from the rights it was opened with; a change of the account's rights is told,
 * then the stream ends, so the browser reconnects (resuming after that event) under the new rights: an administrator
 * made a user stops hearing the other members' tasks at once.
 */
import { CODES } from '../../common/errors.js';
import { ApiError } from '../http/api-error.js';
import { defineRoutes } from '../http/route.js';
import { idsIn, serviceRoutes } from '../http/shapes.js';
import type { LiveEvent } from './hub.js';

const KEEP_ALIVE_MS = 25_000;
const frame = (e: LiveEvent) => `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`;

export const sseRoutes = defineRoutes([
  serviceRoutes('identity')('GET', '/sse/connect', 'signedIn', {
    raw: true,
    schema: { querystring: idsIn('userId'), response: {} },
    handler: async (req, reply) => {
      const auth = req.requireAuth();
      // One's own stream only: another account's id is refused like any foreign right.
      if ((req.query as { userId: string }).userId !== auth.accountId) throw new ApiError(403, CODES.permissionDenied);
      const hub = req.server.live;
      const target = { accountId: auth.accountId, orgId: auth.orgId, orgTasks: auth.ability.can('readAll', 'task') };
      const lastId = req.headers['last-event-id'];
      const missed = typeof lastId === 'string' && /^\d{1,18}$/.test(lastId) ? await hub.replay(target, lastId) : [];

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        // HTTP/2 (a server given a certificate) has no connection header (Node drops it with a warning): streams stay open.
        ...(req.raw.httpVersionMajor >= 2 ? {} : { connection: 'keep-alive' }),
        'x-accel-buffering': 'no',
        'x-request-id': req.id,
      });
      res.write(`retry: 3000\nevent: ready\ndata: ${JSON.stringify({ accountId: auth.accountId, orgCode: auth.orgCode })}\n\n`);
      for (const e of missed) res.write(frame(e));
      const ping = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
      const close = () => {
        clearInterval(ping);
        unsubscribe();
      };
      const unsubscribe = hub.subscribe({
        ...target,
        send: (e) => {
          res.write(frame(e));
          // Rights changed: no further event is chosen by the old ones (unsubscribed before the hub's next send).
          if (e.type === 'permissions' && e.accountId === auth.accountId) {
            close();
            res.end();
          }
        },
        end: () => res.end(),
      });
      req.raw.on('close', close);
    },
  }),
]);

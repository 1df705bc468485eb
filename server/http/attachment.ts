/**
 * A file a raw route answers: its type, a download named `filename`, never kept by a cache (a list, a trace or a
 * template is the organisation's and of this moment).
 */
import type { FastifyReply } from 'fastify';

export function sendAttachment(reply: FastifyReply, type: string, filename: string, body: string | Uint8Array): FastifyReply {
  return reply.type(type).header('content-disposition', `attachment; filename="${filename}"`).header('cache-control', 'no-store').send(body);
}

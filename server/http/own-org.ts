/**
 * An organisation named in a request's path or body must be the caller's current one, by its id or its code; any other
 * (someone else's, or none at all) answers 404 like a missing one, so a caller learns nothing of other organisations.
 */
import type { FastifyRequest } from 'fastify';
import { notFound } from './api-error.js';

export function ownOrg(req: FastifyRequest, idOrCode: string): void {
  const auth = req.requireAuth();
  if (idOrCode !== auth.orgCode && idOrCode !== auth.orgId) throw notFound('organisation', idOrCode);
}

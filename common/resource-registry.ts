/** Every resource schema of schemas/, checked when loaded. Adding a resource starts here (docs/schemas.md). */
import sims from '../schemas/sims.json' with { type: 'json' };
import { defineResource, type ResourceSchema } from './resources.js';

export const RESOURCES: Record<string, ResourceSchema> = {
  sims: defineResource(sims),
};

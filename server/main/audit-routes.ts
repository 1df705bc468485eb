import { defineRoutes } from '../http/route.js';
export const auditRoutes = defineRoutes([]);

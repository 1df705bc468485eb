import { defineRoutes } from '../http/route.js';
export const identityRoutes = defineRoutes([]);

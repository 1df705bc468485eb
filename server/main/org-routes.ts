import { defineRoutes } from '../http/route.js';
export const orgRoutes = defineRoutes([]);

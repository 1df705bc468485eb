/**
 * A list opened from a link with its criteria in the address: ?status=active (an enum filter with one of its values)
 * or ?expiresAtFrom=…&expiresAtTo=… (a date window), as the dashboard links to the SIM list. Other parameters are
 * ignored; a link without any opens the list as it was.
 */
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';
import type { ResourceSchema } from '../../common/resources';
import type { Criteria } from './list-toolbar';

/** The criteria an address names for a resource's list, or null when it names none. */
export function criteriaFromSearch(resource: ResourceSchema, search: string): Criteria | null {
  const params = new URLSearchParams(search);
  const list = resource['x-admin'].list;
  const filters: Criteria['filters'] = {};
  for (const field of list.filters) {
    const value = params.get(field);
    const allowed = resource.properties[field]?.enum as unknown[] | undefined;
    if (value !== null && allowed?.includes(value)) filters[field] = value;
  }
  const ranges: NonNullable<Criteria['ranges']> = {};
  for (const field of list.ranges ?? []) {
    const [from, to] = [Date.parse(params.get(`${field}From`) ?? ''), Date.parse(params.get(`${field}To`) ?? '')];
    if (!Number.isNaN(from) && !Number.isNaN(to) && from <= to) ranges[field] = [new Date(from).toISOString(), new Date(to).toISOString()];
  }
  return Object.keys(filters).length || Object.keys(ranges).length ? { filters, ranges } : null;
}

/**
 * Apply a link's criteria when the list's own address changes to one that names some: on arriving at a kept-alive
 * list (SPEC.md section 2) as well as on its first opening, which reads them through criteriaFromSearch directly.
 */
export function useLinkedCriteria(resource: ResourceSchema, enabled: boolean, apply: (c: Criteria) => void): void {
  const { pathname, search } = useLocation();
  const home = useRef(pathname);
  const seen = useRef(`${pathname}${search}`);
  // Only a change of address applies a link: the rest is read as it is then.
  const latest = useRef({ resource, enabled, apply });
  latest.current = { resource, enabled, apply };
  useEffect(() => {
    const previous = seen.current;
    seen.current = `${pathname}${search}`;
    const { resource: r, enabled: on, apply: use } = latest.current;
    if (!on || pathname !== home.current || previous === seen.current) return;
    const linked = criteriaFromSearch(r, search);
    if (linked) use(linked);
  }, [pathname, search]);
}

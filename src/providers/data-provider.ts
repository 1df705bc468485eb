/**
 * Refine's data provider over the one HTTP helper (headers, envelope, refresh queue, error table). Resources name
 * their calls in meta (SPEC.md section 7 paths, which are not REST): meta.list, meta.one, meta.create, meta.update,
 * meta.remove, each "METHOD /api/service/path" with :id standing for the record's id. Lists are paged, sorted and
 * filtered on the server: page, pageSize, sort (field), order (asc|desc) and one query parameter per filter.
 */
import type { BaseRecord, CrudFilter, DataProvider } from '@refinedev/core';
import { takeEarlyCall } from '../early-calls';
import { api, download, upload } from './http';
import { store } from './session-store';
import type { Page } from '../../common/page';

type Call = { method: string; url: string };

/** "GET /api/x/:id" with the record id filled in, and :org with the current organisation's code. */
export function callOf(spec: unknown, id?: string | number): Call {
  if (typeof spec !== 'string' || !/^(GET|POST|PUT|PATCH|DELETE) \/api\//.test(spec))
    throw new Error(`Resource call "${String(spec)}" must read "METHOD /api/service/path"`);
  const [method, path] = spec.split(' ');
  const withOrg = path.replace(':org', encodeURIComponent(store.get('partnerCode') ?? ''));
  return { method, url: id === undefined ? withOrg : withOrg.replace(':id', encodeURIComponent(String(id))) };
}

/** Refine filters as query parameters: eq and contains by field name, "in" as a repeated parameter. */
export function filterParams(filters: CrudFilter[] = []): URLSearchParams {
  const q = new URLSearchParams();
  for (const f of filters) {
    if (!('field' in f) || f.value === undefined || f.value === null || f.value === '') continue;
    if (Array.isArray(f.value)) for (const v of f.value) q.append(f.field, String(v));
    else q.set(f.field, String(f.value));
  }
  return q;
}

/** Refine filters as a JSON body: each field's value as it is (a bulk list stays a list, a search stays an object). */
export function filterBody(filters: CrudFilter[] = []): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of filters) {
    if (!('field' in f) || f.value === undefined || f.value === null || f.value === '' || (Array.isArray(f.value) && f.value.length === 0)) continue;
    body[f.field] = f.value;
  }
  return body;
}

export const dataProvider: DataProvider = {
  getApiUrl: () => '/api',
  getList: async <T extends BaseRecord>({ pagination, sorters, filters, meta }: Parameters<DataProvider['getList']>[0]) => {
    const { method, url } = callOf(meta?.list);
    const paging = pagination?.mode === 'off' ? {} : { page: pagination?.currentPage ?? 1, pageSize: pagination?.pageSize ?? 20 };
    const sorting = sorters?.[0] ? { sort: sorters[0].field, order: sorters[0].order } : {};
    let page: Page<T>;
    if (method === 'GET') {
      const q = filterParams(filters);
      for (const [k, v] of Object.entries({ ...paging, ...sorting })) q.set(k, String(v));
      page = await api<Page<T>>('GET', `${url}${q.size ? `?${q}` : ''}`);
    } else {
      // POST lists (SPEC.md: /sim/list/es and friends) take a JSON body: lists and search objects stay whole.
      page = await api<Page<T>>(method, url, { ...filterBody(filters), ...paging, ...sorting });
    }
    // A call that answers the whole list as an array (GET /orgs) is one page of everything.
    if (Array.isArray(page)) return { data: page as T[], total: page.length };
    // Extra figures of the answer (a task list's processing count, a capped total) stay beside the rows.
    const { items, total, ...rest } = page;
    return { ...rest, data: items, total };
  },
  getOne: async <T extends BaseRecord>({ id, meta }: Parameters<DataProvider['getOne']>[0]) => {
    const { method, url } = callOf(meta?.one, id);
    // A page that shows its own error (a record that does not exist) asks for no toast besides.
    return { data: await api<T>(method, url, undefined, { quiet: meta?.quiet === true }) };
  },
  create: async <T extends BaseRecord>({ variables, meta }: Parameters<DataProvider['create']>[0]) => {
    const { method, url } = callOf(meta?.create);
    const data =
      variables instanceof FormData
        ? await upload<T>(url, variables, { headers: meta?.headers as Record<string, string> })
        : await api<T>(method, url, variables);
    return { data };
  },
  update: async <T extends BaseRecord>({ id, variables, meta }: Parameters<DataProvider['update']>[0]) => {
    const { method, url } = callOf(meta?.update, id);
    const data =
      variables instanceof FormData
        ? await upload<T>(url, variables, { headers: meta?.headers as Record<string, string> })
        : await api<T>(method, url, variables);
    return { data };
  },
  deleteOne: async <T extends BaseRecord>({ id, variables, meta }: Parameters<DataProvider['deleteOne']>[0]) => {
    const { method, url } = callOf(meta?.remove, id);
    return { data: await api<T>(method, url, variables ?? undefined) };
  },
  // Any other call: JSON in and out, or a file when meta.download is set (exports, templates, PDFs).
  custom: async <T extends BaseRecord>({ url, method, payload, query, meta }: Parameters<NonNullable<DataProvider['custom']>>[0]) => {
    const q = query ? `?${new URLSearchParams(query as Record<string, string>)}` : '';
    if (meta?.download) return { data: (await download(method.toUpperCase(), `${url}${q}`, payload)) as unknown as T };
    // The dashboard's calls may have been started as its route was entered (src/early-calls.ts).
    const started = method.toLowerCase() === 'get' && payload === undefined ? takeEarlyCall(`${url}${q}`) : undefined;
    const early = started && (await started);
    if (early) return { data: early.data as T };
    return { data: await api<T>(method.toUpperCase(), `${url}${q}`, payload) };
  },
};

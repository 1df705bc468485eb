/**
 * Refine's data provider over the one HTTP helper (headers, envelope, refresh queue, error table). Resources name
 * their calls in meta (SPEC.md section 7 paths, which are not REST): meta.list, meta.one, meta.create, meta.update,
 * meta.remove, each "METHOD /api/service/path" with :id standing for the record's id. Lists are paged, sorted and
 * filtered on the server: page, pageSize, sort (field), order (asc|desc) and one query parameter per filter.
 */
import type { BaseRecord, CrudFilter, DataProvider } from '@refinedev/core';
import { api, download, upload } from './http';

type Call = { method: string; url: string };

/** "GET /api/x/:id" with the record id filled in. */
export function callOf(spec: unknown, id?: string | number): Call {
  if (typeof spec !== 'string' || !/^(GET|POST|PUT|PATCH|DELETE) \/api\//.test(spec)) throw new Error(`Resource call "${String(spec)}" must read "METHOD /api/service/path"`);
  const [method, path] = spec.split(' ');
  return { method, url: id === undefined ? path : path.replace(':id', encodeURIComponent(String(id))) };
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

interface Page<T> {
  items: T[];
  total: number;
}

export const dataProvider: DataProvider = {
  getApiUrl: () => '/api',
  getList: async <T extends BaseRecord>({ pagination, sorters, filters, meta }: Parameters<DataProvider['getList']>[0]) => {
    const { method, url } = callOf(meta?.list);
    const q = filterParams(filters);
    if (pagination?.mode !== 'off') {
      q.set('page', String(pagination?.currentPage ?? 1));
      q.set('pageSize', String(pagination?.pageSize ?? 20));
    }
    if (sorters?.[0]) {
      q.set('sort', sorters[0].field);
      q.set('order', sorters[0].order);
    }
    // POST lists (SPEC.md: /sim/list/es and friends) take the same parameters as a JSON body.
    const page =
      method === 'GET'
        ? await api<Page<T>>('GET', `${url}${q.size ? `?${q}` : ''}`)
        : await api<Page<T>>(method, url, Object.fromEntries([...q.keys()].map((k) => [k, q.getAll(k).length > 1 ? q.getAll(k) : q.get(k)])));
    // Extra figures of the answer (a task list's processing count) stay beside the rows.
    const { items, total, ...rest } = page;
    return { ...rest, data: items, total };
  },
  getOne: async <T extends BaseRecord>({ id, meta }: Parameters<DataProvider['getOne']>[0]) => {
    const { method, url } = callOf(meta?.one, id);
    return { data: await api<T>(method, url) };
  },
  create: async <T extends BaseRecord>({ variables, meta }: Parameters<DataProvider['create']>[0]) => {
    const { method, url } = callOf(meta?.create);
    const data = variables instanceof FormData ? await upload<T>(url, variables, { headers: meta?.headers as Record<string, string> }) : await api<T>(method, url, variables);
    return { data };
  },
  update: async <T extends BaseRecord>({ id, variables, meta }: Parameters<DataProvider['update']>[0]) => {
    const { method, url } = callOf(meta?.update, id);
    const data = variables instanceof FormData ? await upload<T>(url, variables, { headers: meta?.headers as Record<string, string> }) : await api<T>(method, url, variables);
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
    return { data: await api<T>(method.toUpperCase(), `${url}${q}`, payload) };
  },
};

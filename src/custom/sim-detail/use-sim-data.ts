/** Reading a SIM tab's call: loading, the data or the error, a reload; and a server-paged table's state. */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePaging } from '../../components/list-parts';
import { api, type HttpError } from '../../providers/http';
import type { NumberedPage } from '../../../common/page';

export interface SimData<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/**
 * Read a tab's call when the tab first shows and whenever the URL, the body or the language changes (the server words
 * some answers, such as the diagnose report, in the caller's language): GET, or POST with a body. Quiet: the tab shows
 * its own error.
 */
export function useSimData<T>(url: string, body?: Record<string, unknown>): SimData<T> {
  const { i18n } = useTranslation();
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [version, setVersion] = useState(0);
  // The body as text, so a body written anew on each render asks again only when it says something else.
  const posted = body === undefined ? undefined : JSON.stringify(body);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    const call = posted === undefined ? api<T>('GET', url, undefined, { quiet: true }) : api<T>('POST', url, JSON.parse(posted), { quiet: true });
    call.then(
      (data) => live && setState({ data, error: null, loading: false }),
      (e: HttpError) => live && setState({ data: null, error: e.message, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [url, posted, version, i18n.language]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { ...state, reload };
}

/** A server-paged list of a SIM: its page and page size travel in the call, antd's pagination drives them. */
export function usePagedSimData<T>(base: string) {
  const paging = usePaging();
  const sep = base.includes('?') ? '&' : '?';
  const result = useSimData<NumberedPage<T>>(`${base}${sep}page=${paging.page}&pageSize=${paging.pageSize}`);
  return { ...result, pagination: paging.pagination(result.data?.total ?? 0), resetPage: () => paging.setPage(1) };
}

/** The query string of a SIM's calls. */
export const simQuery = (iccid: string) => `iccid=${encodeURIComponent(iccid)}`;

/**
 * What the hand-built list pages share: the page and page size a list paged on the server asks for (usePaging), an
 * antd table over the page that came back, with its pager and what it says when empty (PagedTable), and the
 * confirmation before a row is deleted (ConfirmDelete).
 */
import { App, Empty, Popconfirm, Table, type TablePaginationConfig, type TableProps } from 'antd';
import { useCallback, useState, type ReactElement, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export interface Paging {
  page: number;
  pageSize: number;
  /** Another page of the same size, as when a filter changes (back to 1). */
  setPage: (page: number) => void;
  /** antd's pager for a list of `total` rows; a new page size starts again at its first page. */
  pagination: (total: number, more?: TablePaginationConfig) => TablePaginationConfig;
}

/** The page and page size a server-paged list asks for, starting at page 1 of `pageSize` rows. */
export function usePaging(pageSize = 20): Paging {
  const [paging, setPaging] = useState({ page: 1, pageSize });
  const setPage = useCallback((page: number) => setPaging((p) => ({ ...p, page })), []);
  const onChange = (page: number, size: number) => setPaging({ page: size === paging.pageSize ? page : 1, pageSize: size });
  return { ...paging, setPage, pagination: (total, more) => ({ current: paging.page, pageSize: paging.pageSize, total, showSizeChanger: true, onChange, ...more }) };
}

export type PagedTableProps<T> = Omit<TableProps<T>, 'dataSource' | 'pagination' | 'locale'> & {
  /** The page the server sent, or null while it comes (the table shows it loading). */
  data: { items: T[]; total: number } | null;
  paging: Paging;
  /** What the table says without rows: a text, or an Empty of its own. */
  empty: ReactNode;
  /** The pager's settings beyond page, size and total. */
  pager?: TablePaginationConfig;
};

/** A table of one server page (rows keyed by id, middle size, unless told otherwise). */
export function PagedTable<T extends object>({ data, paging, empty, pager, ...table }: PagedTableProps<T>) {
  const emptyText = typeof empty === 'string' ? <Empty description={empty} /> : empty;
  return <Table<T> rowKey="id" size="middle" loading={data === null} dataSource={data?.items ?? []} locale={{ emptyText }} pagination={paging.pagination(data?.total ?? 0, pager)} {...table} />;
}

/**
 * Its button opens a confirmation: "{words}.deleteTitle" with the name, "{words}.deleteText", a red "{words}.delete"
 * and "{words}.cancel"; once `remove` has done, "{words}.deleted" with the name, then onDone.
 */
export function ConfirmDelete({ words, name, remove, onDone, children }: { words: string; name: string; remove: () => Promise<unknown>; onDone: () => void; children: ReactElement }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const confirm = async () => {
    await remove();
    void message.success(t(`${words}.deleted`, { name }));
    onDone();
  };
  return (
    <Popconfirm title={t(`${words}.deleteTitle`, { name })} description={t(`${words}.deleteText`)} okText={t(`${words}.delete`)} okButtonProps={{ danger: true }} cancelText={t(`${words}.cancel`)} onConfirm={confirm}>
      {children}
    </Popconfirm>
  );
}

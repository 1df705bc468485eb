/**
 * What the hand-built list pages share: the page and page size a list paged on the server asks for (usePaging), an
 * antd table over the page that came back, with its pager and what it says when empty (PagedTable), and the
 * confirmation before a row is deleted (ConfirmDelete).
 */
import { App, Empty, Popconfirm, Table, type TablePaginationConfig, type TableProps } from 'antd';
import { useCallback, useState, type CSSProperties, type ReactElement, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Page } from '../../common/page';

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
  return {
    ...paging,
    setPage,
    pagination: (total, more) => ({ current: paging.page, pageSize: paging.pageSize, total, showSizeChanger: true, onChange, ...more }),
  };
}

export type PagedTableProps<T> = Omit<TableProps<T>, 'dataSource' | 'pagination' | 'locale'> & {
  /** The page the server sent, or null while it comes (the table shows it loading). */
  data: Page<T> | null;
  paging: Paging;
  /** What the table says without rows: a text, or an Empty of its own. */
  empty: ReactNode;
  /** The pager's settings beyond page, size and total. */
  pager?: TablePaginationConfig;
};

/**
 * How a list table fits its card: as wide as the card, its headers and cells wrapping to fit (auto layout), and
 * scrolling sideways only when even wrapped it cannot fit. `scroll.x: 'max-content'` kept every cell on one line, so
 * at 1280 px a list ran past its card and its last columns slid under the fixed actions column; antd's default with
 * fixed columns (table-layout fixed) would share the width equally and cut the ICCIDs instead.
 */
export const FIT_TABLE = { scroll: { x: '100%' }, tableLayout: 'auto' } as const satisfies Pick<TableProps<object>, 'scroll' | 'tableLayout'>;

/**
 * The style of a block in a table cell that may be narrower than its content (a text cut with an ellipsis): its
 * own width does not count in the table's auto layout (contain: inline-size), so a long text never widens its column
 * past the card. Give the column the `width` it should have when there is room; when there is not, the element
 * shrinks down to `min` px.
 */
export const shrinkable = (min: number): CSSProperties => ({ contain: 'inline-size', minWidth: min });

/** A text on one line in a table cell (see shrinkable), ending in an ellipsis when longer, the whole of it in its title (shown on hover). */
export function Cut({ text, min }: { text: string; min: number }) {
  return (
    <span title={text} style={{ ...shrinkable(min), display: 'block', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
      {text}
    </span>
  );
}

/** A table of one server page (rows keyed by id, middle size, unless told otherwise). */
export function PagedTable<T extends object>({ data, paging, empty, pager, ...table }: PagedTableProps<T>) {
  const emptyText = typeof empty === 'string' ? <Empty description={empty} /> : empty;
  return (
    <Table<T>
      rowKey="id"
      size="middle"
      {...FIT_TABLE}
      loading={data === null}
      dataSource={data?.items ?? []}
      locale={{ emptyText }}
      pagination={paging.pagination(data?.total ?? 0, pager)}
      {...table}
    />
  );
}

/**
 * Its button opens a confirmation: "{words}.deleteTitle" with the name, "{words}.deleteText", a red "{words}.delete"
 * and "{words}.cancel"; once `remove` has done, "{words}.deleted" with the name, then onDone.
 */
export function ConfirmDelete({
  words,
  name,
  remove,
  onDone,
  children,
}: {
  words: string;
  name: string;
  remove: () => Promise<unknown>;
  onDone: () => void;
  children: ReactElement;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const confirm = async () => {
    await remove();
    void message.success(t(`${words}.deleted`, { name }));
    onDone();
  };
  return (
    <Popconfirm
      title={t(`${words}.deleteTitle`, { name })}
      description={t(`${words}.deleteText`)}
      okText={t(`${words}.delete`)}
      okButtonProps={{ danger: true }}
      cancelText={t(`${words}.cancel`)}
      onConfirm={confirm}
    >
      {children}
    </Popconfirm>
  );
}

/**
 * The list page of any resource declared in schemas/ (docs/schemas.md): columns, sorting, filters, search and bulk
 * search all come from the schema's x-admin.list; paging, sorting and filtering run on the server.
 */
import { EditOutlined } from '@ant-design/icons';
import { useTable } from '@refinedev/antd';
import type { CrudFilter } from '@refinedev/core';
import { Card, Empty, Skeleton, Space, Table, Typography, type CheckboxProps } from 'antd';
import { useEffect, useMemo, useRef, useState, type Key, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { rangeProblem, type ResourceSchema } from '../../common/resources';
import { useDebouncedValue } from '../components/use-debounced-value';
import { filterBody } from '../providers/data-provider';
import { InertWhenHidden } from '../components/inert-when-hidden';
import { Cell } from './cell';
import { criteriaFromSearch, useLinkedCriteria } from './linked-criteria';
import { ExportButton } from './export-button';
import { ListToolbar, searchProblem, windowBodyOf, type Criteria } from './list-toolbar';
import { formatNumber } from '../../common/numbers';
import { FIT_TABLE } from '../components/list-parts';

/** Rows of a page (pageSize), and the height of one at the table's middle density as drawn (a SIM list row: 48 px). */
const PAGE_SIZE = 20;
const ROW_HEIGHT = 48;

/** The columns a person chose for a resource, kept in the browser. */
function useShownColumns(resource: ResourceSchema): [string[], (c: string[]) => void] {
  const { resource: name, list } = resource['x-admin'];
  const key = `columns:${name}`;
  const initial = list.defaultColumns ?? list.columns;
  const [shown, setShown] = useState<string[]>(() => {
    try {
      const saved = (JSON.parse(localStorage.getItem(key) ?? 'null') as string[] | null)?.filter((c) => list.columns.includes(c));
      return saved?.length ? saved : initial;
    } catch {
      return initial;
    }
  });
  return [
    shown,
    (c) => {
      localStorage.setItem(key, JSON.stringify(c));
      setShown(c);
    },
  ];
}

/** Criteria as Refine filters; the data provider sends them as the list body. */
function toFilters(c: Criteria): CrudFilter[] {
  const out: CrudFilter[] = Object.entries(c.filters)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([field, value]) => ({ field, operator: 'eq', value }));
  for (const [field, window] of Object.entries(c.ranges ?? {})) {
    if (!window) continue;
    out.push({ field: `${field}From`, operator: 'gte', value: window[0] }, { field: `${field}To`, operator: 'lte', value: window[1] });
  }
  if (c.search) out.push({ field: 'search', operator: 'eq', value: c.search });
  if (c.bulk?.length) out.push({ field: 'bulk', operator: 'in', value: c.bulk });
  return out;
}

interface ListProps {
  resource: ResourceSchema;
  title: string;
  /** Beside the title: the create button and other page actions. */
  extra?: ReactNode;
  /** Where a row's key leads (its detail page). */
  showPath?: (row: Record<string, unknown>) => string;
  /** Where a row's Edit leads; absent when the role may not edit. */
  editPath?: (row: Record<string, unknown>) => string;
  /** Further actions of a row (rename, make default), each already limited to what the role may do. */
  rowActions?: (row: Record<string, unknown>) => ReactNode;
  /** Changes when the rows changed elsewhere (an action in a dialog): the list is fetched again. */
  version?: number;
  /** Filters the list always carries (a nested list's parent: an invoice's lines). */
  fixedFilters?: Record<string, unknown>;
  /** How the bar shows a fixed filter (the invoice's number and month rather than its id); its value otherwise. */
  fixedShown?: Record<string, string>;
  /** Values every row's cells may read (the invoice's currency for its lines). */
  cellContext?: Record<string, unknown>;
  /** The export call ("METHOD /api/…"), for a role that may export: rows can be ticked, and the list goes to the task center. */
  exportCall?: string | { all: string; selected: string };
  /** Buttons acting on the ticked rows (SIM actions); done() clears the ticks and fetches the list again. */
  selectionActions?: (ticked: string[], done: () => void) => ReactNode;
  /** A field's cell drawn by the page instead of from the schema (the organisations' Default with its Make default). */
  cells?: Record<string, (row: Record<string, unknown>) => ReactNode>;
  /** Told the criteria each time the list asks with new ones (the CDR chart opens on the list's search and window). */
  onCriteria?: (c: Criteria) => void;
}

export function ResourceListPage({
  resource,
  title,
  extra,
  showPath,
  editPath,
  rowActions,
  version = 0,
  fixedFilters,
  fixedShown,
  cellContext,
  exportCall,
  selectionActions,
  onCriteria,
  cells,
}: ListProps) {
  const { t, i18n } = useTranslation();
  const admin = resource['x-admin'];
  const [shown, setShown] = useShownColumns(resource);
  // A list that needs a time window (CDRs) opens on the last 7 days; a page's list opened by a link, on the link's criteria.
  const opening = (): Criteria => {
    const req = admin.list.requiredRange;
    const now = Date.now();
    return { filters: {}, ranges: req ? { [req.field]: [new Date(now - 7 * 86_400_000).toISOString(), new Date(now).toISOString()] } : {} };
  };
  const [criteria, setCriteria] = useState<Criteria>(() => (title && criteriaFromSearch(resource, window.location.search)) || opening());
  const [typed, setTyped] = useState({ field: admin.list.search?.[0] ?? '', value: '' });
  useLinkedCriteria(resource, Boolean(title), (linked) => {
    setTyped((s) => ({ ...s, value: '' }));
    setCriteria({ filters: linked.filters, ranges: { ...opening().ranges, ...linked.ranges } });
  });
  const settled = useDebouncedValue(typed);
  // Compared by value: a parent's filter object is new on every render of the parent.
  const fixedKey = JSON.stringify(fixedFilters ?? {});
  const fixed = useMemo<CrudFilter[]>(
    () => Object.entries(JSON.parse(fixedKey) as Record<string, unknown>).map(([field, value]) => ({ field, operator: 'eq', value })),
    [fixedKey],
  );
  // The bar shows a fixed filter as what it is scoped to, not as "All" with the scope hidden.
  const fixedWords = Object.fromEntries(Object.entries(fixedFilters ?? {}).map(([f, v]) => [f, fixedShown?.[f] ?? String(v)]));
  const { tableProps, tableQuery, setFilters } = useTable({
    resource: admin.resource,
    meta: { list: admin.list.call },
    syncWithLocation: false,
    pagination: { pageSize: PAGE_SIZE },
    // A list the server does not sort on request (accounts, organisations) gets no sort parameters at all.
    sorters: { initial: admin.list.sortable.includes(admin.list.defaultSort.field) ? [admin.list.defaultSort] : [] },
    // The first request already carries the opening window (a CDR list cannot go without one).
    filters: { initial: [...fixed, ...toFilters(criteria)] },
  });

  // The typed search goes out once it has settled and is searchable; the bulk list under the schema's own name.
  useEffect(() => {
    const value = settled.value.trim();
    const search = value && !searchProblem(resource, settled.field, value) ? { field: settled.field, value } : undefined;
    // A window the server would refuse (over the maximum span) is shown as such and not sent.
    if (rangeProblem(resource, windowBodyOf(criteria))) return;
    const filters = toFilters({ ...criteria, search }).map((f) => ('field' in f && f.field === 'bulk' ? { ...f, field: admin.list.bulk!.param } : f));
    sent.current = [...fixed, ...filters];
    setFilters([...fixed, ...filters], 'replace');
  }, [criteria, settled, resource, admin.list.bulk, setFilters, fixed]);
  // The page hears of the search as typed, not as settled: a click on its chart right after typing carries it.
  const told = useRef(onCriteria);
  told.current = onCriteria;
  useEffect(() => {
    const value = typed.value.trim();
    told.current?.({ ...criteria, search: value && !searchProblem(resource, typed.field, value) ? { field: typed.field, value } : undefined });
  }, [criteria, typed, resource]);
  const sent = useRef<CrudFilter[]>([]);
  const [ticked, setTicked] = useState<Key[]>([]);

  const columns = useMemo(
    () =>
      shown.map((f) => ({
        key: f,
        dataIndex: f,
        title: t(`${admin.i18n}.fields.${f}`),
        sorter: admin.list.sortable.includes(f),
        // The first column names the row: it stays in view while the table scrolls sideways (1280 px screens).
        fixed: f === shown[0] ? ('left' as const) : undefined,
        // A number that names something (ICCID, MSISDN, IMEI) is never broken across lines when the columns wrap to fit;
        // a name in words that names the row keeps room for two or three words a line rather than one.
        onCell: () => (resource.properties[f].pattern ? { style: { whiteSpace: 'nowrap' as const } } : f === shown[0] ? { style: { minWidth: '8em' } } : {}),
        render: (v: unknown, row: Record<string, unknown>) =>
          cells?.[f] ? (
            cells[f](row)
          ) : // The first column opens the record's detail page where it has one.
          showPath && f === shown[0] ? (
            <Link to={showPath(row)}>
              <Cell resource={resource} field={f} value={v} row={{ ...cellContext, ...row }} plain />
            </Link>
          ) : (
            <Cell resource={resource} field={f} value={v} row={{ ...cellContext, ...row }} />
          ),
      })),
    [shown, admin, resource, t, showPath, cellContext, cells],
  );
  const withActions =
    editPath || rowActions
      ? [
          ...columns,
          {
            key: '__actions',
            dataIndex: admin.key,
            title: t('resources.actions'),
            fixed: 'right' as const,
            render: (_: unknown, row: Record<string, unknown>) => (
              <Space size="middle">
                {editPath && (
                  <Link to={editPath(row)} aria-label={`${t('forms.edit')} ${String(row[shown[0]] ?? '')}`}>
                    <EditOutlined /> {t('forms.edit')}
                  </Link>
                )}
                {rowActions?.(row)}
              </Space>
            ),
          },
        ]
      : columns;
  useEffect(() => {
    if (version) void tableQuery.refetch();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new version asks again
  }, [version]);
  const total = tableQuery.data?.total ?? 0;
  const capped = Boolean(tableQuery.data?.totalCapped);
  const count = total - (capped ? 1 : 0);
  const n = formatNumber(count, i18n.language);
  // A page's list before its first answer: placeholder lines a page of rows high instead of an empty table under a
  // spinner, so the rows take a place already kept (layout shift, docs/decisions.md). A nested list (a detail page's
  // tab) keeps antd's spinner: it often holds a few rows, and shrinking from a page's height would move what is under it.
  const firstLoad = Boolean(title) && !tableQuery.data && tableQuery.isLoading;

  return (
    <>
      {(title || extra || exportCall || selectionActions) && (
        <div style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', gap: 12, marginBottom: 16 }}>
          <Typography.Title level={3} style={{ margin: 0, whiteSpace: 'nowrap' }}>
            {title}
          </Typography.Title>
          {/* Many buttons in a long language wrap among themselves, right-aligned, and leave the title on one line. */}
          <Space wrap style={{ justifyContent: 'flex-end' }}>
            {selectionActions?.(ticked.map(String), () => {
              setTicked([]);
              void tableQuery.refetch();
            })}
            {exportCall && <ExportButton call={exportCall} filters={() => filterBody(sent.current)} ticked={ticked.map(String)} total={count} />}
            {extra}
          </Space>
        </div>
      )}
      {/* A nested list (no title: a tab of a detail page) sits in its parent's card. */}
      <Card variant={title ? 'outlined' : 'borderless'} styles={title ? undefined : { body: { padding: 0 } }}>
        <ListToolbar
          resource={resource}
          criteria={criteria}
          onChange={setCriteria}
          fixed={fixedWords}
          shown={shown}
          onColumns={setShown}
          text={typed.value}
          searchField={typed.field}
          onText={(field, value) => setTyped({ field, value })}
        />
        <Table
          {...tableProps}
          rowKey={admin.key}
          // Lists of a fleet are read row by row: the middle density shows more of them, and more columns at 1280 px.
          size="middle"
          rowSelection={
            exportCall || selectionActions
              ? {
                  selectedRowKeys: ticked,
                  onChange: setTicked,
                  preserveSelectedRowKeys: true,
                  fixed: true,
                  // Each tick box is named after its row (antd's own are nameless, or "Select all" in English only); antd hands
                  // the aria-label on to the input, its types just do not list it.
                  getTitleCheckboxProps: () => ({ 'aria-label': t('resources.selectAll') }),
                  columnTitle: (box: ReactNode) => <InertWhenHidden>{box}</InertWhenHidden>,
                  getCheckboxProps: (row) =>
                    ({ 'aria-label': t('resources.selectRow', { name: String(row[shown[0]] ?? row[admin.key] ?? '') }) }) as CheckboxProps,
                }
              : undefined
          }
          columns={withActions}
          // As wide as the card, cells wrapping to fit; only when even wrapped it is wider (1280 px, many columns) does it
          // scroll sideways inside itself, its scroll bar kept at the bottom of the window (sticky) rather than under the
          // last row, the naming column and the actions fixed at its edges.
          {...FIT_TABLE}
          sticky={{ offsetScroll: 0 }}
          pagination={{ ...tableProps.pagination, showTotal: () => t(capped ? 'resources.totalMore' : 'resources.total', { count, n }) }}
          loading={firstLoad ? false : tableProps.loading}
          locale={{
            emptyText: firstLoad ? (
              // One bar per row to come; the placeholder cell's own padding and border (33 px) are part of the page's height.
              <div aria-hidden style={{ height: PAGE_SIZE * ROW_HEIGHT - 33, display: 'flex', flexDirection: 'column', justifyContent: 'space-around' }}>
                {Array.from({ length: PAGE_SIZE }, (_, i) => (
                  <Skeleton.Input key={i} active block size="small" style={{ height: 16 }} />
                ))}
              </div>
            ) : (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('resources.empty')} />
            ),
          }}
        />
      </Card>
    </>
  );
}

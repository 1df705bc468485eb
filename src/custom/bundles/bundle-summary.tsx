/**
 * The bundle orders list's "by bundle" view: the organisation's bundles one row per product (POST
 * /device/bundle): SIMs holding it, orders by status, this cycle's use, SIMs over their allowance or slowed or stopped;
 * exported through the task center (/device/bundle/export), and each product's coverage countries too
 * (/device/coverCountry/export). Its words come with it (./locales), not with the sign-in bundle.
 */
import { DownOutlined, ExportOutlined, UnorderedListOutlined } from '@ant-design/icons';
import { App, Button, Card, Dropdown, Empty, Select, Space, Table, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { pageTexts } from '../../components/page-texts';
import { usePaging, FIT_TABLE } from '../../components/list-parts';
import { LimitedSearch } from '../../components/limited-search';
import { api, type HttpError } from '../../providers/http';
import { formatKb, TwoLineCell } from '../../resources/cell';
import { ExportButton } from '../../resources/export-button';
import { currentAbility } from '../../shell/ability';
import { formatNumber } from '../../../common/numbers';

const useTexts = pageTexts(import.meta.glob<Record<string, unknown>>('./locales/*.json', { import: 'default' }), 'bundleSummary.title').useReady;

interface Product {
  sku: string;
  name: string;
  resetCycle: string;
  quotaKb: number | null;
  outOfCoverage: string;
  overagePolicies: string[];
  sims: number;
  inUse: number;
  pending: number;
  expired: number;
  cancelled: number;
  cycleUsedKb: number;
  overAllowance: number;
  controlled: number;
}

const STATUSES = ['IN_USE', 'PENDING', 'EXPIRED', 'CANCELLED'] as const;

/** The bundle search: the server takes at most 64 characters. */
const BUNDLE_SEARCH_MAX = 64;

export function BundleSummary({ onOrders }: { onOrders: () => void }) {
  const { t, i18n } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const { lang } = useParams();
  const ready = useTexts();
  const [filters, setFilters] = useState<{ status?: string; search?: string }>({});
  const [searchText, setSearchText] = useState('');
  const paging = usePaging();
  const { page, pageSize } = paging;
  const [state, setState] = useState<{ items: Product[]; total: number; loading: boolean; error: string | null }>({
    items: [],
    total: 0,
    loading: true,
    error: null,
  });
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    api<{ items: Product[]; total: number }>('POST', '/api/main/device/bundle', { ...filters, page, pageSize }, { quiet: true }).then(
      (d) => live && setState({ ...d, loading: false, error: null }),
      (e: HttpError) => live && setState({ items: [], total: 0, loading: false, error: e.message }),
    );
    return () => void (live = false);
  }, [filters, page, pageSize, i18n.language]);
  const mayExport = currentAbility().can('export', 'sim');
  const kb = (v: number | null) => (v === null ? '—' : formatKb(v, i18n.language));
  const n = (v: number) => formatNumber(v, i18n.language);
  const coverage = async (format: 'csv' | 'xlsx') => {
    try {
      const r = await api<{ quantity: number }>('POST', '/api/main/device/coverCountry/export', { format });
      void message.success({
        content: (
          <span>
            {t('resources.exportStarted', { count: r.quantity, n: n(r.quantity) })} <a onClick={() => navigate(`/${lang}/taskcenter`)}>{t('resources.open')}</a>
          </span>
        ),
        duration: 6,
      });
    } catch {
      // The HTTP helper shows the server's reason.
    }
  };
  if (!ready) return null;
  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <Typography.Title level={3} style={{ margin: 0 }}>
          {t('bundleSummary.title')}
        </Typography.Title>
        <Space wrap>
          <Button icon={<UnorderedListOutlined />} onClick={onOrders}>
            {t('bundleSummary.orders')}
          </Button>
          {mayExport && state.total > 0 && <ExportButton call="POST /api/main/device/bundle/export" filters={() => filters} ticked={[]} total={state.total} />}
          {mayExport && (
            <Dropdown
              trigger={['click']}
              menu={{
                items: (['csv', 'xlsx'] as const).map((f) => ({
                  key: f,
                  label: t('bundleSummary.coverageAs', { format: f.toUpperCase() }),
                  onClick: () => void coverage(f),
                })),
              }}
            >
              <Button icon={<ExportOutlined />}>
                {t('bundleSummary.coverage')} <DownOutlined />
              </Button>
            </Dropdown>
          )}
        </Space>
      </Space>
      <Card>
        <Typography.Paragraph type="secondary">{t('bundleSummary.hint')}</Typography.Paragraph>
        <Space wrap align="start" style={{ marginBottom: 12 }}>
          <LimitedSearch
            max={BUNDLE_SEARCH_MAX}
            allowClear
            aria-label={t('bundleSummary.search')}
            placeholder={t('bundleSummary.search')}
            value={searchText}
            onChange={(e) => setSearchText(e.target.value)}
            onSearch={(v) => {
              // A text longer than the server takes is not searched: the line under the box says so.
              if (v.length > BUNDLE_SEARCH_MAX) return;
              setFilters((f) => ({ ...f, search: v.trim() || undefined }));
              paging.setPage(1);
            }}
            style={{ width: 240 }}
          />
          <Select
            allowClear
            aria-label={t('bundleSummary.status')}
            placeholder={t('bundleSummary.anyStatus')}
            style={{ width: 200 }}
            options={STATUSES.map((s) => ({ value: s, label: t(`bundleOrders.enum.status.${s}`) }))}
            onChange={(v?: string) => {
              setFilters((f) => ({ ...f, status: v }));
              paging.setPage(1);
            }}
          />
        </Space>
        <Table<Product>
          rowKey="sku"
          size="small"
          data-testid="bundle-summary"
          loading={state.loading}
          dataSource={state.items}
          {...FIT_TABLE}
          locale={{ emptyText: <Empty description={state.error ?? t('bundleSummary.empty')} /> }}
          pagination={paging.pagination(state.total)}
          columns={[
            { key: 'name', title: t('bundleSummary.columns.name'), render: (_, p) => <TwoLineCell name={p.name} detail={p.sku} /> },
            { key: 'reset', title: t('bundleSummary.columns.resetCycle'), render: (_, p) => t(`bundleOrders.enum.resetCycle.${p.resetCycle}`) },
            { key: 'quota', title: t('bundleSummary.columns.quotaKb'), align: 'right', render: (_, p) => kb(p.quotaKb) },
            { key: 'sims', title: t('bundleSummary.columns.sims'), align: 'right', render: (_, p) => n(p.sims) },
            { key: 'inUse', title: t('bundleSummary.columns.inUse'), align: 'right', render: (_, p) => n(p.inUse) },
            { key: 'pending', title: t('bundleSummary.columns.pending'), align: 'right', render: (_, p) => n(p.pending) },
            {
              key: 'ended',
              title: `${t('bundleSummary.columns.expired')} / ${t('bundleSummary.columns.cancelled')}`,
              align: 'right',
              render: (_, p) => `${n(p.expired)} / ${n(p.cancelled)}`,
            },
            { key: 'used', title: t('bundleSummary.columns.cycleUsedKb'), align: 'right', render: (_, p) => kb(p.cycleUsedKb) },
            {
              key: 'over',
              title: t('bundleSummary.columns.overAllowance'),
              align: 'right',
              render: (_, p) => (p.overAllowance ? <Typography.Text type="warning">{n(p.overAllowance)}</Typography.Text> : n(0)),
            },
            {
              key: 'controlled',
              title: t('bundleSummary.columns.controlled'),
              align: 'right',
              render: (_, p) => (p.controlled ? <Typography.Text type="danger">{n(p.controlled)}</Typography.Text> : n(0)),
            },
            { key: 'coverage', title: t('bundleSummary.columns.outOfCoverage'), render: (_, p) => t(`bundleOrders.enum.outOfCoverage.${p.outOfCoverage}`) },
          ]}
        />
      </Card>
    </>
  );
}

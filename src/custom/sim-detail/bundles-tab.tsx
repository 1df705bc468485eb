/**
 * A SIM's bundle orders (SPEC.md section 3): type, payment mode, quota and use, reset cycle, overage and
 * out-of-coverage policies and status; a row opens onto its coverage countries (named in the interface language) and
 * its overuse policy in words.
 */
import { Descriptions, Empty, Progress, Space, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { DateTime } from '../../components/date-time';
import { formatKb, TwoLineCell } from '../../resources/cell';
import { BUNDLE_STATUS_COLORS, type BundleOrder } from './bundle-order';
import { BundleQueue } from './bundle-queue';
import { TabFrame } from './tab-frame';
import { simQuery, useSimData } from './use-sim-data';

/** The overage policy as a label and its speed or threshold (for the table), or as a sentence (for the detail). */
function useOverage() {
  const { t, i18n } = useTranslation();
  const kb = (v: number | null) => (v === null ? '—' : formatKb(v, i18n.language));
  return {
    label: (b: BundleOrder) => t(`bundleOrders.enum.overagePolicy.${b.overagePolicy}`),
    detail: (b: BundleOrder) => {
      if (b.overagePolicy === 'billing_speed_decrease') return t('simDetail.bundles.throttle', { speed: b.throttleKbps });
      if (b.overagePolicy === 'billing_throttle_after_threshold')
        return t('simDetail.bundles.throttleAfter', { speed: b.throttleKbps, threshold: kb(b.overageThresholdKb) });
      if (b.overagePolicy === 'billing_stop_after_allowance') return t('simDetail.bundles.stopAfter', { threshold: kb(b.overageThresholdKb) });
      return null;
    },
    words: (b: BundleOrder) =>
      t(`simDetail.bundles.policy.${b.overagePolicy}`, {
        quota: b.quotaKb === null ? t('simDetail.bundles.unlimited') : kb(b.quotaKb),
        speed: b.throttleKbps ?? '—',
        threshold: kb(b.overageThresholdKb),
      }),
  };
}

function BundleDetail({ b }: { b: BundleOrder }) {
  const { t, i18n } = useTranslation();
  const overage = useOverage();
  const names = new Intl.DisplayNames([i18n.language], { type: 'region' });
  const countries = [...b.coverageCountries].map((c) => ({ code: c, name: names.of(c) ?? c })).sort((x, y) => x.name.localeCompare(y.name, i18n.language));
  return (
    <Descriptions
      size="small"
      column={{ xs: 1, lg: 2 }}
      items={[
        {
          key: 'coverage',
          label: t('simDetail.bundles.coverage', { count: countries.length }),
          span: { xs: 1, lg: 2 },
          children: countries.length ? (
            <Space size={[0, 6]} wrap>
              {countries.map((c) => (
                <Tag key={c.code} title={c.code}>
                  {c.name}
                </Tag>
              ))}
            </Space>
          ) : (
            <Typography.Text type="secondary">{t('simDetail.bundles.noCoverage')}</Typography.Text>
          ),
        },
        {
          key: 'overuse',
          label: t('simDetail.bundles.overuse'),
          span: { xs: 1, lg: 2 },
          children: (
            <Space direction="vertical" size={0}>
              <span>{overage.words(b)}</span>
              <span>{t(`simDetail.bundles.coveragePolicy.${b.outOfCoverage}`)}</span>
            </Space>
          ),
        },
        { key: 'sku', label: t('bundleOrders.fields.sku'), children: b.sku },
        { key: 'service', label: t('bundleOrders.fields.serviceType'), children: t(`bundleOrders.enum.serviceType.${b.serviceType}`) },
        { key: 'order', label: t('bundleOrders.fields.salesOrderId'), children: b.salesOrderId ?? '—' },
        { key: 'activated', label: t('bundleOrders.fields.activatedAt'), children: <DateTime value={b.activatedAt} /> },
        { key: 'expired', label: t('simDetail.bundles.ended'), children: <DateTime value={b.expiredAt} /> },
      ]}
    />
  );
}

export function BundlesTab({ iccid }: { iccid: string }) {
  const { t, i18n } = useTranslation();
  const state = useSimData<{ items: BundleOrder[] }>(`/api/main/sim/bundle?${simQuery(iccid)}`);
  const overage = useOverage();
  const kb = (v: number) => formatKb(v, i18n.language);
  return (
    <TabFrame state={state}>
      {({ items }) => (
        <>
          <BundleQueue iccid={iccid} changed={state.reload} />
          <Table<BundleOrder>
            rowKey="id"
            size="small"
            dataSource={items}
            loading={state.loading}
            pagination={false}
            locale={{ emptyText: <Empty description={t('simDetail.bundles.empty')} /> }}
            expandable={{ expandedRowRender: (b) => <BundleDetail b={b} />, rowExpandable: () => true }}
            columns={[
              {
                key: 'name',
                title: t('bundleOrders.fields.name'),
                render: (_, b) => <TwoLineCell name={b.name} detail={t(`bundleOrders.enum.type.${b.type}`)} />,
              },
              {
                key: 'status',
                title: t('bundleOrders.fields.status'),
                render: (_, b) => <Tag color={BUNDLE_STATUS_COLORS[b.status]}>{t(`bundleOrders.enum.status.${b.status}`)}</Tag>,
              },
              { key: 'payment', title: t('bundleOrders.fields.paymentMode'), render: (_, b) => t(`bundleOrders.enum.paymentMode.${b.paymentMode}`) },
              {
                key: 'quota',
                title: t('simDetail.bundles.quota'),
                render: (_, b) => (
                  <div style={{ minWidth: 130 }}>
                    <Typography.Text>
                      {b.quotaKb === null ? `${kb(b.usedKb)} / ${t('simDetail.bundles.unlimited')}` : `${kb(b.usedKb)} / ${kb(b.quotaKb)}`}
                    </Typography.Text>
                    {b.quotaKb !== null && (
                      <Progress
                        aria-label={t('simDetail.bundles.quota')}
                        size="small"
                        showInfo={false}
                        percent={b.quotaKb > 0 ? Math.min(100, (b.usedKb / b.quotaKb) * 100) : 0}
                        status={b.usedKb > b.quotaKb ? 'exception' : 'normal'}
                      />
                    )}
                    <Typography.Text type="secondary">{`${t('bundleOrders.fields.resetCycle')}: ${t(`bundleOrders.enum.resetCycle.${b.resetCycle}`)}`}</Typography.Text>
                  </div>
                ),
              },
              {
                key: 'policies',
                title: t('simDetail.bundles.policies'),
                render: (_, b) => (
                  <Space direction="vertical" size={0}>
                    <span>{overage.label(b)}</span>
                    {overage.detail(b) && <Typography.Text type="secondary">{overage.detail(b)}</Typography.Text>}
                    <Typography.Text type="secondary">{`${t('bundleOrders.fields.outOfCoverage')}: ${t(`bundleOrders.enum.outOfCoverage.${b.outOfCoverage}`)}`}</Typography.Text>
                  </Space>
                ),
              },
              {
                key: 'dates',
                title: t('simDetail.bundles.dates'),
                render: (_, b) => (
                  <Space direction="vertical" size={0}>
                    <span>
                      <Typography.Text type="secondary">{`${t('bundleOrders.fields.orderedAt')}: `}</Typography.Text>
                      <DateTime value={b.orderedAt} />
                    </span>
                    <span>
                      <Typography.Text type="secondary">{`${t('bundleOrders.fields.expectedExpireAt')}: `}</Typography.Text>
                      <DateTime value={b.expectedExpireAt} />
                    </span>
                  </Space>
                ),
              },
            ]}
          />
        </>
      )}
    </TabFrame>
  );
}

/**
 * A SIM's service tab: what its bundles give it now (GET /sim/service), its lifecycle periods and when each
 * ends (GET /sim/details), and its card with whether the activate action would take it (GET /sim/spec/{iccid}).
 */
import { Card, Col, Descriptions, Progress, Row, Tag, Typography, type DescriptionsProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { DateTime } from '../../components/date-time';
import { formatKb } from '../../resources/cell';
import { cycleAmounts } from './cycle-amounts';
import { usePolicyTexts } from './data-policy';
import { TabFrame } from './tab-frame';
import { simQuery, useSimData } from './use-sim-data';

interface Service {
  data: boolean;
  sms: boolean;
  inUse: number;
  pending: number;
  next: { id: string; name: string } | null;
  cycle: {
    bundleName: string;
    resetCycle: string;
    number: number;
    start: string;
    end: string;
    usageKb: number;
    limitKb: number | null;
    remainingKb: number | null;
    overageKb: number | null;
  } | null;
  control: 'none' | 'throttle_128' | 'throttle_256' | 'stop';
  expiresAt: string | null;
}

interface Details {
  activatedAt: string | null;
  test: {
    status: string;
    allowanceKb: number | null;
    usedKb: number | null;
    periodDays: number | null;
    startedAt: string | null;
    endsAt: string | null;
    running: boolean;
  };
  preActivated: { at: string | null; periodDays: number | null; endsAt: string | null; running: boolean };
  deactivated: { at: string | null; periodDays: number | null; retainedUntil: string | null };
}

interface Spec {
  imsi: string | null;
  msisdn: string | null;
  imei: string | null;
  technology: string;
  productType: string;
  batchNo: string | null;
  deliveryNote: string | null;
  shipmentDate: string | null;
  activatable: boolean;
  activateRefusal: string | null;
}

const CONTROL_COLORS = { none: 'green', throttle_128: 'orange', throttle_256: 'gold', stop: 'red' } as const;

/** The tab's facts: label and value a line, small. */
const Facts = (props: DescriptionsProps) => <Descriptions size="small" column={1} {...props} />;

export function ServiceTab({ iccid }: { iccid: string }) {
  const { t, i18n } = useTranslation();
  const ready = usePolicyTexts();
  const service = useSimData<Service>(`/api/main/sim/service?${simQuery(iccid)}`);
  const details = useSimData<Details>(`/api/main/sim/details?${simQuery(iccid)}`);
  const spec = useSimData<Spec>(`/api/main/sim/spec/${encodeURIComponent(iccid)}`);
  const kb = (v: number | null | undefined) => (v === null || v === undefined ? '—' : formatKb(v, i18n.language));
  const days = (n: number | null) => (n === null ? '—' : t('simService.periods.days', { count: n }));
  const running = (on: boolean) => <Tag color={on ? 'processing' : 'default'}>{t(on ? 'simService.periods.running' : 'simService.periods.notRunning')}</Tag>;
  if (!ready) return null;
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} xl={12}>
        <Card size="small" title={t('simService.service.title')} data-testid="sim-service">
          <TabFrame state={service}>
            {(s) => (
              <>
                <Facts
                  items={[
                    {
                      key: 'control',
                      label: t('simService.service.control'),
                      children: <Tag color={CONTROL_COLORS[s.control]}>{t(`simService.service.controls.${s.control}`)}</Tag>,
                    },
                    { key: 'data', label: t('simService.service.data'), children: t(s.data ? 'simService.service.on' : 'simService.service.off') },
                    { key: 'sms', label: t('simService.service.sms'), children: t(s.sms ? 'simService.service.on' : 'simService.service.off') },
                    { key: 'inUse', label: t('simService.service.inUse'), children: s.inUse },
                    { key: 'pending', label: t('simService.service.pending'), children: s.pending },
                    { key: 'next', label: t('simService.service.next'), children: s.next?.name ?? t('simService.service.none') },
                    { key: 'expires', label: t('simService.service.expires'), children: <DateTime value={s.expiresAt} /> },
                  ]}
                />
                {s.cycle ? (
                  <CycleFacts cycle={s.cycle} />
                ) : (
                  <Typography.Paragraph type="secondary" style={{ marginTop: 16 }}>
                    {t('simService.service.noCycle')}
                  </Typography.Paragraph>
                )}
              </>
            )}
          </TabFrame>
        </Card>
      </Col>
      <Col xs={24} xl={12}>
        <Card size="small" title={t('simService.periods.title')} data-testid="sim-periods" style={{ marginBottom: 16 }}>
          <TabFrame state={details}>
            {(d) => (
              <>
                <Facts
                  title={t('simService.periods.test')}
                  extra={running(d.test.running)}
                  items={[
                    { key: 'status', label: t('simService.periods.status'), children: t(`simService.periods.testStatus.${d.test.status}`) },
                    {
                      key: 'allowance',
                      label: t('simService.periods.allowance'),
                      children: d.test.allowanceKb === null ? '—' : `${kb(d.test.usedKb ?? 0)} / ${kb(d.test.allowanceKb)}`,
                    },
                    { key: 'days', label: t('simService.periods.length'), children: days(d.test.periodDays) },
                    { key: 'started', label: t('simService.periods.started'), children: <DateTime value={d.test.startedAt} /> },
                    { key: 'ends', label: t('simService.periods.ends'), children: <DateTime value={d.test.endsAt} /> },
                  ]}
                />
                <Facts
                  style={{ marginTop: 16 }}
                  title={t('simService.periods.preActivated')}
                  extra={running(d.preActivated.running)}
                  items={[
                    { key: 'started', label: t('simService.periods.started'), children: <DateTime value={d.preActivated.at} /> },
                    { key: 'ends', label: t('simService.periods.ends'), children: <DateTime value={d.preActivated.endsAt} /> },
                  ]}
                />
                <Facts
                  style={{ marginTop: 16, marginBottom: 8 }}
                  title={t('simService.periods.deactivated')}
                  items={[
                    { key: 'started', label: t('simService.periods.started'), children: <DateTime value={d.deactivated.at} /> },
                    { key: 'retained', label: t('simService.periods.retained'), children: <DateTime value={d.deactivated.retainedUntil} /> },
                  ]}
                />
                <Typography.Text type="secondary">{t('simService.periods.endsHint')}</Typography.Text>
              </>
            )}
          </TabFrame>
        </Card>
        <Card size="small" title={t('simService.card.title')} data-testid="sim-card">
          <TabFrame state={spec}>
            {(c) => (
              <Facts
                items={[
                  { key: 'technology', label: t('sims.fields.technology'), children: t(`sims.enum.technology.${c.technology}`) },
                  { key: 'productType', label: t('sims.fields.productType'), children: t(`sims.enum.productType.${c.productType}`) },
                  { key: 'imsi', label: t('simService.card.imsi'), children: c.imsi ?? '—' },
                  { key: 'msisdn', label: t('simService.card.msisdn'), children: c.msisdn ?? '—' },
                  { key: 'imei', label: t('simService.card.imei'), children: c.imei ?? '—' },
                  { key: 'batch', label: t('simService.card.batch'), children: c.batchNo ?? '—' },
                  { key: 'delivery', label: t('simService.card.delivery'), children: c.deliveryNote ?? '—' },
                  { key: 'shipment', label: t('simService.card.shipment'), children: c.shipmentDate ?? '—' },
                  {
                    key: 'activation',
                    label: t('simService.card.activation'),
                    children: c.activatable ? (
                      <Tag color="green">{t('simService.card.activatable')}</Tag>
                    ) : (
                      <Typography.Text type="secondary">{t('simService.card.refused', { reason: t(`errors.sim.${c.activateRefusal}`) })}</Typography.Text>
                    ),
                  },
                ]}
              />
            )}
          </TabFrame>
        </Card>
      </Col>
    </Row>
  );
}

/** The cycle the SIM counts: its bounds, and used, limit, left and overage in amounts that add up (cycle-amounts.ts). */
function CycleFacts({ cycle: c }: { cycle: NonNullable<Service['cycle']> }) {
  const { t, i18n } = useTranslation();
  const a = cycleAmounts(c, i18n.language);
  return (
    <Facts
      style={{ marginTop: 16 }}
      title={t('simService.service.cycleOf', { number: c.number, bundle: c.bundleName })}
      items={[
        {
          key: 'bounds',
          label: t('simService.service.cycle'),
          children: (
            <span>
              <DateTime value={c.start} /> – <DateTime value={c.end} /> ({t(`bundleOrders.enum.resetCycle.${c.resetCycle}`)})
            </span>
          ),
        },
        {
          key: 'usage',
          label: t('simService.service.usage'),
          children: (
            <div style={{ minWidth: 200 }}>
              {`${a.used} / ${a.limit ?? '—'}`}
              {c.limitKb !== null && (
                <Progress
                  aria-label={t('simService.service.usage')}
                  size="small"
                  showInfo={false}
                  percent={c.limitKb > 0 ? Math.min(100, (c.usageKb / c.limitKb) * 100) : 100}
                  status={c.usageKb >= c.limitKb ? 'exception' : 'normal'}
                />
              )}
            </div>
          ),
        },
        { key: 'remaining', label: t('simService.service.remaining'), children: a.left ?? '—' },
        { key: 'overage', label: t('simService.service.overage'), children: a.over ?? '—' },
      ]}
    />
  );
}

/** Data per bucket (uplink and downlink stacked) and SMS per bucket (MO and MT), both on the dashboard's UTC+8 clock. */
import { ClockCircleOutlined } from '@ant-design/icons';
import { Col, Row, Typography } from 'antd';
import { TextStatistic } from '../../components/text-statistic';
import { useTranslation } from 'react-i18next';
import type { DashboardView } from '../../../common/dashboard';
import { formatKb, unitFor } from '../../resources/cell';
import { BarChart } from '../../components/svg-chart/bar-chart';
import { bucketLabel, bucketTooltip, type SeriesWords } from './format';
import { Panel } from './panel';
import type { Call, SmsUsage, Statistics } from './use-dashboard';
import { readableShade } from '../../providers/readable-theme';
import { formatNumber } from '../../../common/numbers';

const UPLINK = '#2f54eb';
const DOWNLINK = '#85a5ff';
const MO = '#13c2c2';
const MT = '#fa8c16';

/** The note on how the buckets are cut. */
function ClockHint({ view }: { view: DashboardView }) {
  const { t } = useTranslation();
  return (
    <Typography.Text type="secondary" style={{ fontSize: 12, fontWeight: 'normal' }}>
      <ClockCircleOutlined /> {t(view === '24h' ? 'analysis.clock.hours' : 'analysis.clock.days')}
    </Typography.Text>
  );
}

export function UsagePanel({ call, view, height }: { call: Call<Statistics>; view: DashboardView; height: number }) {
  const { t, i18n } = useTranslation();
  return (
    <Panel
      title={t('analysis.statistics.title')}
      extra={<ClockHint view={view} />}
      call={call}
      height={height}
      isEmpty={(d) => d.series.every((b) => b.volumeKb === 0)}
      emptyText={t('analysis.statistics.empty')}
    >
      {(d) => {
        const unit = unitFor(Math.max(0, ...d.series.map((b) => b.volumeKb)));
        const scaled = (kb: number) => Math.round((kb / unit.divisor) * 100) / 100;
        const [up, down] = [t('analysis.statistics.uplink'), t('analysis.statistics.downlink')];
        const kb = (v: number) => formatKb(v, i18n.language);
        const tick = (v: number) => formatNumber(v, i18n.language);
        const words: SeriesWords[] = [
          { name: up, color: UPLINK, value: (b) => kb(b.uplinkKb) },
          { name: down, color: DOWNLINK, value: (b) => kb(b.downlinkKb) },
        ];
        return (
          <BarChart
            label={t('analysis.statistics.title')}
            height={height}
            legend
            unit={unit.name}
            categoryName={t('analysis.period')}
            categories={d.series.map((b) => bucketLabel(b.label, d.view, i18n.language))}
            formatTick={tick}
            series={[
              { name: up, color: UPLINK, values: d.series.map((b) => scaled(b.uplinkKb)) },
              { name: down, color: DOWNLINK, values: d.series.map((b) => scaled(b.downlinkKb)) },
            ]}
            // Each bucket in its own best unit (1,536 KB reads 1.5 MB), whatever unit the axis is drawn in.
            describe={(i, shown) =>
              bucketTooltip(
                d.series[i],
                d.view,
                i18n.language,
                words.filter((_, s) => shown.has(s)),
                { label: t('analysis.statistics.total'), of: (b) => kb(b.volumeKb) },
              )
            }
          />
        );
      }}
    </Panel>
  );
}

export function SmsPanel({ call, view, height }: { call: Call<SmsUsage>; view: DashboardView; height: number }) {
  const { t, i18n } = useTranslation();
  const n = (v: number) => formatNumber(v, i18n.language);
  const chartHeight = height - 84;
  return (
    <Panel
      title={t('analysis.sms.title')}
      extra={<ClockHint view={view} />}
      call={call}
      height={height}
      isEmpty={(d) => d.mo + d.mt === 0}
      emptyText={t('analysis.sms.empty')}
    >
      {(d) => {
        const [mo, mt] = [t('analysis.sms.mo'), t('analysis.sms.mt')];
        const words: SeriesWords[] = [
          { name: mo, color: MO, value: (b) => n(b.smsMo) },
          { name: mt, color: MT, value: (b) => n(b.smsMt) },
        ];
        return (
          <>
            <Row gutter={16} style={{ marginBottom: 12 }}>
              <Col span={8}>
                <TextStatistic title={t('analysis.sms.total')} value={n(d.mo + d.mt)} />
              </Col>
              <Col span={8}>
                <TextStatistic title={mo} value={n(d.mo)} valueStyle={{ color: readableShade(MO, ['#ffffff']) }} />
              </Col>
              <Col span={8}>
                <TextStatistic title={mt} value={n(d.mt)} valueStyle={{ color: readableShade(MT, ['#ffffff']) }} />
              </Col>
            </Row>
            <BarChart
              label={t('analysis.sms.title')}
              height={chartHeight}
              minInterval={1}
              barMaxWidth={28}
              categoryName={t('analysis.period')}
              categories={d.series.map((b) => bucketLabel(b.label, d.view, i18n.language))}
              formatTick={n}
              // Bars: SMS counts are small whole numbers, which a smoothed line would draw as waves.
              series={[
                { name: mo, color: MO, values: d.series.map((b) => b.smsMo) },
                { name: mt, color: MT, values: d.series.map((b) => b.smsMt) },
              ]}
              describe={(i, shown) =>
                bucketTooltip(
                  d.series[i],
                  d.view,
                  i18n.language,
                  words.filter((_, s) => shown.has(s)),
                )
              }
            />
          </>
        );
      }}
    </Panel>
  );
}

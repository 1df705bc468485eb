/** Data per bucket (uplink and downlink stacked) and SMS per bucket (MO and MT), both on the dashboard's UTC+8 clock. */
import { ClockCircleOutlined } from '@ant-design/icons';
import { Col, Row, Typography } from 'antd';
import { TextStatistic } from '../../components/text-statistic';
import { useTranslation } from 'react-i18next';
import type { DashboardView } from '../../../common/dashboard';
import { formatKb, unitFor } from '../../resources/cell';
import { axisTooltip, bucketLabel } from './format';
import { LazyChart, Panel } from './panel';
import type { Bucket, Call, SmsUsage, Statistics } from './use-dashboard';
import { readableShade } from '../../providers/readable-theme';

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

const axis = (series: Bucket[], view: DashboardView, lang: string) => ({
  type: 'category' as const,
  data: series.map((b) => bucketLabel(b.label, view, lang)),
  axisTick: { alignWithLabel: true },
  axisLabel: { hideOverlap: true, color: '#595959' },
});
/** The value axis's numbers with the language's digits and separators. */
const valueLabel = (lang: string) => ({ formatter: (v: number) => v.toLocaleString(lang) });

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
        return (
          <LazyChart
            label={t('analysis.statistics.title')}
            height={height}
            option={{
              color: [UPLINK, DOWNLINK],
              // Each bucket in its own best unit (1,536 KB reads 1.5 MB), whatever unit the axis is drawn in.
              tooltip: axisTooltip(d.series, d.view, i18n.language, (b, s) => kb(s === 0 ? b.uplinkKb : b.downlinkKb), {
                label: t('analysis.statistics.total'),
                of: (b) => kb(b.volumeKb),
              }),
              legend: { top: 0, right: 0, data: [up, down] },
              grid: { left: 8, right: 8, top: 40, bottom: 0, containLabel: true },
              xAxis: axis(d.series, d.view, i18n.language),
              yAxis: { type: 'value', name: unit.name, nameTextStyle: { align: 'right' }, axisLabel: valueLabel(i18n.language), splitLine: { lineStyle: { type: 'dashed' } } },
              series: [
                { name: up, type: 'bar', stack: 'volume', barMaxWidth: 36, data: d.series.map((b) => scaled(b.uplinkKb)) },
                { name: down, type: 'bar', stack: 'volume', barMaxWidth: 36, itemStyle: { borderRadius: [3, 3, 0, 0] }, data: d.series.map((b) => scaled(b.downlinkKb)) },
              ],
            }}
          />
        );
      }}
    </Panel>
  );
}

export function SmsPanel({ call, view, height }: { call: Call<SmsUsage>; view: DashboardView; height: number }) {
  const { t, i18n } = useTranslation();
  const n = (v: number) => v.toLocaleString(i18n.language);
  const chartHeight = height - 84;
  return (
    <Panel title={t('analysis.sms.title')} extra={<ClockHint view={view} />} call={call} height={height} isEmpty={(d) => d.mo + d.mt === 0} emptyText={t('analysis.sms.empty')}>
      {(d) => {
        const [mo, mt] = [t('analysis.sms.mo'), t('analysis.sms.mt')];
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
            <LazyChart
              label={t('analysis.sms.title')}
              height={chartHeight}
              option={{
                color: [MO, MT],
                tooltip: axisTooltip(d.series, d.view, i18n.language, (b, s) => n(s === 0 ? b.smsMo : b.smsMt)),
                legend: { show: false },
                grid: { left: 8, right: 8, top: 16, bottom: 0, containLabel: true },
                xAxis: axis(d.series, d.view, i18n.language),
                yAxis: { type: 'value', minInterval: 1, axisLabel: valueLabel(i18n.language), splitLine: { lineStyle: { type: 'dashed' } } },
                // Bars: SMS counts are small whole numbers, which a smoothed line would draw as waves.
                series: [
                  { name: mo, type: 'bar', stack: 'sms', barMaxWidth: 28, data: d.series.map((b) => b.smsMo) },
                  { name: mt, type: 'bar', stack: 'sms', barMaxWidth: 28, itemStyle: { borderRadius: [3, 3, 0, 0] }, data: d.series.map((b) => b.smsMt) },
                ],
              }}
            />
          </>
        );
      }}
    </Panel>
  );
}

/**
 * A SIM's data use per calendar day (the last 30), month (12) or year (5), the cycle options of SPEC.md section 9,
 * uplink and downlink stacked; days end at 23:59 UTC on SIM pages. Loaded on its own (it brings ECharts).
 */
import { Card, Col, Empty, Row, Segmented, Space, Typography } from 'antd';
import { TextStatistic } from '../../components/text-statistic';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Chart } from '../../components/echarts';
import { formatKb, unitFor } from '../../resources/cell';
import { TabFrame } from './tab-frame';
import { simQuery, useSimData } from './use-sim-data';
import { formatNumber } from '../../../common/numbers';

type Cycle = 'day' | 'month' | 'year';
interface Totals {
  uplinkKb: number;
  downlinkKb: number;
  volumeKb: number;
}
interface Usage {
  cycle: Cycle;
  buckets: Array<Totals & { period: string }>;
  total: Totals;
}

/** A bucket's name on the axis: the language's short date, month or year. */
function periodLabel(period: string, cycle: Cycle, lang: string): string {
  const [y, m = '1', d = '1'] = period.split('-');
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  const options: Intl.DateTimeFormatOptions =
    cycle === 'day'
      ? { month: 'short', day: 'numeric', timeZone: 'UTC' }
      : cycle === 'month'
        ? { year: 'numeric', month: 'short', timeZone: 'UTC' }
        : { year: 'numeric', timeZone: 'UTC' };
  return new Intl.DateTimeFormat(lang, options).format(date);
}

export function UsageTab({ iccid }: { iccid: string }) {
  const { t, i18n } = useTranslation();
  const [cycle, setCycle] = useState<Cycle>('day');
  const state = useSimData<Usage>(`/api/main/sim/usage?${simQuery(iccid)}&cycle=${cycle}`);
  const kb = (v: number) => formatKb(v, i18n.language);
  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <Space wrap align="center" size="middle">
        <Segmented<Cycle>
          aria-label={t('simDetail.usage.cycle')}
          value={cycle}
          onChange={setCycle}
          options={(['day', 'month', 'year'] as const).map((c) => ({ value: c, label: t(`simDetail.usage.${c}`) }))}
        />
        <Typography.Text type="secondary">
          {t(`simDetail.usage.span.${cycle}`)}
          {cycle === 'day' ? ` · ${t('simDetail.usage.utc')}` : ''}
        </Typography.Text>
      </Space>
      <TabFrame state={state}>
        {(u) => {
          const unit = unitFor(Math.max(0, ...u.buckets.map((b) => b.volumeKb)));
          const value = (v: number) => Math.round((v / unit.divisor) * 100) / 100;
          const shown = u.cycle === cycle ? u : null;
          return (
            <>
              <Row gutter={[16, 16]}>
                {(['volumeKb', 'uplinkKb', 'downlinkKb'] as const).map((k) => (
                  <Col xs={24} md={8} key={k}>
                    <Card size="small">
                      <TextStatistic
                        title={t(`simDetail.usage.${k === 'volumeKb' ? 'total' : k === 'uplinkKb' ? 'uplink' : 'downlink'}`)}
                        value={kb(u.total[k])}
                      />
                    </Card>
                  </Col>
                ))}
              </Row>
              <Card size="small" style={{ marginTop: 16 }} title={t('simDetail.usage.chart')} loading={!shown}>
                {u.total.volumeKb === 0 ? (
                  <Empty description={t('simDetail.usage.empty')} />
                ) : (
                  <Chart
                    label={t('simDetail.usage.chart')}
                    height={340}
                    option={{
                      tooltip: { trigger: 'axis', valueFormatter: (v) => `${formatNumber(Number(v), i18n.language)} ${unit.name}` },
                      legend: { top: 0, data: [t('simDetail.usage.uplink'), t('simDetail.usage.downlink')] },
                      grid: { left: 64, right: 24, bottom: 40, top: 48 },
                      xAxis: { type: 'category', data: u.buckets.map((b) => periodLabel(b.period, u.cycle, i18n.language)) },
                      yAxis: { type: 'value', name: unit.name },
                      series: [
                        { name: t('simDetail.usage.uplink'), type: 'bar', stack: 'volume', data: u.buckets.map((b) => value(b.uplinkKb)) },
                        { name: t('simDetail.usage.downlink'), type: 'bar', stack: 'volume', data: u.buckets.map((b) => value(b.downlinkKb)) },
                      ],
                    }}
                  />
                )}
              </Card>
            </>
          );
        }}
      </TabFrame>
    </Space>
  );
}

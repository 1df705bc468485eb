/**
 * CDR chart (chartView, highlighting cdrCard): data volume per day, uplink and downlink, over at most 31 natural days
 * (SPEC.md section 5), for the organisation or one SIM, from the summary call that reads the usage rollups.
 */
import { ArrowLeftOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Col, DatePicker, Empty, Input, Row, Skeleton, Space, Statistic, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { LIMITS } from '../../../common/limits';
import { Chart } from '../../components/echarts';
import { useDebouncedValue } from '../../components/use-debounced-value';
import { api, type HttpError } from '../../providers/http';
import { store } from '../../providers/session-store';
import { formatKb } from '../../resources/cell';

interface Totals {
  uplinkKb: number;
  downlinkKb: number;
  volumeKb: number;
  cdrCount: number;
}
interface Summary {
  days: Array<Totals & { day: string }>;
  total: Totals;
}

const ICCID = /^89[0-9]{17,18}$/;

export function ChartViewPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { lang } = useParams();
  const [range, setRange] = useState<[Dayjs, Dayjs]>(() => [dayjs().subtract(6, 'day'), dayjs()]);
  const [typed, setTyped] = useState('');
  const iccid = useDebouncedValue(typed.trim());
  const [data, setData] = useState<Summary | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const span = range[1].startOf('day').diff(range[0].startOf('day'), 'day') + 1;
  const tooLong = span > LIMITS.cdrSummaryDays;
  const badIccid = iccid !== '' && !ICCID.test(iccid);

  useEffect(() => {
    if (tooLong || badIccid) return;
    let live = true;
    setData(null);
    setProblem(null);
    const org = encodeURIComponent(store.get('partnerCode') ?? '');
    api<Summary>('POST', `/api/cdr/sum/distributor/${org}/stdcdrs`, { from: range[0].format('YYYY-MM-DD'), to: range[1].format('YYYY-MM-DD'), ...(iccid ? { iccid } : {}) }, { quiet: true }).then(
      (r) => live && setData(r),
      (e: HttpError) => live && setProblem(e.message),
    );
    return () => {
      live = false;
    };
  }, [range, iccid, tooLong, badIccid]);

  const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10;
  const empty = data !== null && data.total.cdrCount === 0;
  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <Space align="center" size="middle" wrap>
        <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(`/${lang}/cdrCard`)}>
          {t('cdrChart.back')}
        </Button>
        <Typography.Title level={3} style={{ margin: 0 }}>
          {t('menu.chartView')}
        </Typography.Title>
      </Space>
      <Card>
        <Space wrap size="middle">
          <DatePicker.RangePicker
            aria-label={t('cdrChart.days')}
            value={range}
            allowClear={false}
            disabledDate={(d) => d.isAfter(dayjs(), 'day')}
            onChange={(v) => v?.[0] && v[1] && setRange([v[0], v[1]])}
          />
          <Input allowClear style={{ width: 280 }} aria-label={t('cdrChart.iccid')} placeholder={t('cdrChart.iccidPlaceholder')} value={typed} onChange={(e) => setTyped(e.target.value)} status={badIccid ? 'error' : undefined} />
        </Space>
        {tooLong && <Alert style={{ marginTop: 12 }} type="warning" showIcon message={t('cdrChart.tooLong', { days: LIMITS.cdrSummaryDays })} />}
        {badIccid && <Alert style={{ marginTop: 12 }} type="warning" showIcon message={t('cdrChart.badIccid')} />}
        {problem && <Alert style={{ marginTop: 12 }} type="error" showIcon message={problem} />}
      </Card>
      {!tooLong && !badIccid && !problem && (
        <>
          <Row gutter={16}>
            {(['volumeKb', 'uplinkKb', 'downlinkKb'] as const).map((k) => (
              <Col xs={24} md={6} key={k}>
                <Card>{data ? <Statistic title={t(`cdrChart.${k}`)} value={formatKb(data.total[k], i18n.language)} /> : <Skeleton active paragraph={false} />}</Card>
              </Col>
            ))}
            <Col xs={24} md={6}>
              <Card>{data ? <Statistic title={t('cdrChart.cdrCount')} value={data.total.cdrCount.toLocaleString(i18n.language)} /> : <Skeleton active paragraph={false} />}</Card>
            </Col>
          </Row>
          <Card title={t('cdrChart.perDay')}>
            {!data ? (
              <Skeleton active paragraph={{ rows: 8 }} />
            ) : empty ? (
              <Empty description={t('cdrChart.empty')} />
            ) : (
              <Chart
                label={t('cdrChart.perDay')}
                option={{
                  tooltip: { trigger: 'axis', valueFormatter: (v) => `${String(v)} MB` },
                  legend: { data: [t('cdrChart.uplinkKb'), t('cdrChart.downlinkKb')] },
                  grid: { left: 56, right: 24, bottom: 40, top: 40 },
                  xAxis: { type: 'category', data: data.days.map((d) => d.day) },
                  yAxis: { type: 'value', name: 'MB' },
                  series: [
                    { name: t('cdrChart.uplinkKb'), type: 'bar', stack: 'volume', data: data.days.map((d) => mb(d.uplinkKb)) },
                    { name: t('cdrChart.downlinkKb'), type: 'bar', stack: 'volume', data: data.days.map((d) => mb(d.downlinkKb)) },
                  ],
                }}
              />
            )}
          </Card>
        </>
      )}
    </Space>
  );
}

/**
 * CDR chart (chartView, highlighting cdrCard): data volume per day, uplink and downlink, over at most 31 natural days
 * (SPEC.md section 5), for the organisation, one SIM or the SIMs whose ICCID ends in the digits typed (as the list
 * searches), from the summary call that reads the usage rollups. Opened from the list, it starts on the list's
 * ICCID search and days (?iccid=&from=&to=).
 */
import { ArrowLeftOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Col, DatePicker, Empty, Input, Row, Skeleton, Space, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { LIMITS } from '../../../common/limits';
import { Chart } from '../../components/echarts';
import { TextStatistic } from '../../components/text-statistic';
import { useDebouncedValue } from '../../components/use-debounced-value';
import { api, type HttpError } from '../../providers/http';
import { store } from '../../providers/session-store';
import { formatKb } from '../../resources/cell';
import { Labelled } from '../../resources/list-toolbar';
import { cdrChartOption } from './chart-option';
import { formatNumber } from '../../../common/numbers';
import { ICCID_PATTERN } from '../../../common/iccid';

const ICCID_SHAPE = new RegExp(ICCID_PATTERN);

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

/** A whole ICCID or its trailing digits, at least 2 (SPEC.md section 5, as the list searches). */
const ICCID_OR_END = /^[0-9]{2,20}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The days a link asks for (the list's window), else the last 7. */
function openingRange(from: string | null, to: string | null): [Dayjs, Dayjs] {
  if (from && to && DAY.test(from) && DAY.test(to) && dayjs(from).isValid() && dayjs(to).isValid() && !dayjs(to).isBefore(dayjs(from)))
    return [dayjs(from), dayjs(to)];
  return [dayjs().subtract(6, 'day'), dayjs()];
}

export function ChartViewPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { lang } = useParams();
  const [params] = useSearchParams();
  const [range, setRange] = useState<[Dayjs, Dayjs]>(() => openingRange(params.get('from'), params.get('to')));
  const [typed, setTyped] = useState(() => params.get('iccid') ?? '');
  const iccid = useDebouncedValue(typed.trim());
  const [data, setData] = useState<Summary | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const span = range[1].startOf('day').diff(range[0].startOf('day'), 'day') + 1;
  const tooLong = span > LIMITS.cdrSummaryDays;
  const badIccid = iccid !== '' && !ICCID_OR_END.test(iccid);
  const whole = ICCID_SHAPE.test(iccid);

  useEffect(() => {
    if (tooLong || badIccid) return;
    let live = true;
    setData(null);
    setProblem(null);
    const org = encodeURIComponent(store.get('partnerCode') ?? '');
    api<Summary>(
      'POST',
      `/api/cdr/sum/distributor/${org}/stdcdrs`,
      { from: range[0].format('YYYY-MM-DD'), to: range[1].format('YYYY-MM-DD'), ...(iccid ? { iccid } : {}) },
      { quiet: true },
    ).then(
      (r) => live && setData(r),
      (e: HttpError) => live && setProblem(e.message),
    );
    return () => {
      live = false;
    };
  }, [range, iccid, tooLong, badIccid]);

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
        <Space wrap size="middle" align="end">
          <Labelled label={t('cdrChart.days')} htmlFor="cdr-chart-days">
            <DatePicker.RangePicker
              id={{ start: 'cdr-chart-days', end: 'cdr-chart-days-end' }}
              aria-label={t('cdrChart.days')}
              value={range}
              allowClear={false}
              disabledDate={(d) => d.isAfter(dayjs(), 'day')}
              onChange={(v) => v?.[0] && v[1] && setRange([v[0], v[1]])}
            />
          </Labelled>
          <Labelled label={t('cdrChart.iccid')} htmlFor="cdr-chart-iccid">
            <Input
              id="cdr-chart-iccid"
              allowClear
              style={{ width: 300 }}
              aria-label={t('cdrChart.iccid')}
              placeholder={t('cdrChart.iccidPlaceholder')}
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              status={badIccid ? 'error' : undefined}
            />
          </Labelled>
        </Space>
        {tooLong && <Alert style={{ marginTop: 12 }} type="warning" showIcon message={t('cdrChart.tooLong', { days: LIMITS.cdrSummaryDays })} />}
        {badIccid && <Alert style={{ marginTop: 12 }} type="warning" showIcon message={t('cdrChart.badIccid')} />}
        {!badIccid && iccid && !whole && (
          <Typography.Paragraph type="secondary" style={{ margin: '12px 0 0' }}>
            {t('cdrChart.endingIn', { digits: iccid })}
          </Typography.Paragraph>
        )}
        {problem && <Alert style={{ marginTop: 12 }} type="error" showIcon message={problem} />}
      </Card>
      {!tooLong && !badIccid && !problem && (
        <>
          <Row gutter={16}>
            {(['volumeKb', 'uplinkKb', 'downlinkKb'] as const).map((k) => (
              <Col xs={24} md={6} key={k}>
                <Card>
                  {data ? <TextStatistic title={t(`cdrChart.${k}`)} value={formatKb(data.total[k], i18n.language)} /> : <Skeleton active paragraph={false} />}
                </Card>
              </Col>
            ))}
            <Col xs={24} md={6}>
              <Card>
                {data ? (
                  <TextStatistic title={t('cdrChart.cdrCount')} value={formatNumber(data.total.cdrCount, i18n.language)} />
                ) : (
                  <Skeleton active paragraph={false} />
                )}
              </Card>
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
                option={cdrChartOption(data.days, { uplink: t('cdrChart.uplinkKb'), downlink: t('cdrChart.downlinkKb') }, i18n.language)}
              />
            )}
          </Card>
        </>
      )}
    </Space>
  );
}

/**
 * A shared pool's dashboard, in the pool's page: usage now against the limit, usage over the cycle, usage per
 * day or per SIM group, the top SIMs, and the pool's SIMs, from the pool calls that read its rollups
 * (GET /api/pool/shared_pool/cube/dashboard/…). ECharts comes with this module only (loaded on demand).
 */
import { Alert, Card, Col, Empty, Row, Segmented, Skeleton, Space, Table, Tag, Typography, Button } from 'antd';
import type { EChartsOption } from 'echarts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Chart } from '../../components/echarts';
import { api, type HttpError } from '../../providers/http';
import { formatKb, unitFor } from '../../resources/cell';
import { usePoolTexts } from './texts';
import { formatNumber, numberFormat } from '../../../common/numbers';

interface RealTime {
  name: string;
  usageKb: number;
  limitKb: number;
  percent: number;
  activatedSims: number;
  totalSims: number;
  stoppedSims: number;
  cycleStart: string;
  cycleEnd: string;
  /** The cycle's last day, as the pool's page shows it. */
  cycleLastDay: string;
  overage: boolean;
  overageAt: string | null;
  overagePolicy: string;
}
interface Line {
  limitKb: number;
  points: Array<{ day: string; usageKb: number; cumulativeKb: number }>;
}
interface Bars {
  by: 'day' | 'group';
  bars: Array<{ key: string; usageKb: number; sims: number }>;
}
interface Ranked {
  iccid: string;
  usageKb: number;
  sharePercent: number;
  stopped: boolean;
  status: string;
}
interface Member {
  iccid: string;
  status: string;
  joinedAt: string;
  usageKb: number;
  stopped: boolean;
  enrolled: boolean;
}
interface MembersPage {
  items: Member[];
  total: number;
  nextCursor: string | null;
}

const base = '/api/pool/shared_pool/cube/dashboard';

/** One dashboard call, again when `key` changes; its error shown where its chart would be. */
function useCall<T>(path: string, key: unknown): { data: T | null; problem: string | null } {
  const [state, setState] = useState<{ data: T | null; problem: string | null }>({ data: null, problem: null });
  useEffect(() => {
    let live = true;
    setState({ data: null, problem: null });
    api<T>('GET', `${base}/${path}`, undefined, { quiet: true }).then(
      (data) => live && setState({ data, problem: null }),
      (e: HttpError) => live && setState({ data: null, problem: e.message }),
    );
    return () => void (live = false);
  }, [path, key]);
  return state;
}

/** Values in the unit the largest reads best in, with the unit's name for the axis. */
function inUnit(maxKb: number, lang: string) {
  const unit = unitFor(maxKb);
  const number = numberFormat(lang, { maximumFractionDigits: 2 });
  return { unit: unit.name, of: (kb: number) => Math.round((kb / unit.divisor) * 100) / 100, format: (v: number) => `${number.format(v)} ${unit.name}` };
}

const GRID = { left: 8, right: 16, top: 40, bottom: 8, outerBoundsMode: 'same', outerBoundsContain: 'all' } as const;

function ChartCard({ title, problem, loading, children }: { title: string; problem: string | null; loading: boolean; children: React.ReactNode }) {
  return (
    <Card size="small" title={title} style={{ height: '100%' }}>
      {problem ? <Alert type="error" showIcon message={problem} /> : loading ? <Skeleton active /> : children}
    </Card>
  );
}

export function PoolDashboard({ poolId, version = 0 }: { poolId: string; version?: number }) {
  return usePoolTexts() ? <Dashboard poolId={poolId} version={version} /> : <Skeleton active />;
}

function Dashboard({ poolId, version }: { poolId: string; version: number }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const q = `poolId=${encodeURIComponent(poolId)}`;
  const [by, setBy] = useState<'day' | 'group'>('day');
  const [cursors, setCursors] = useState<string[]>([]);
  const rt = useCall<RealTime>(`real_time_data?${q}`, version);
  const line = useCall<Line>(`line_chart?${q}`, version);
  const bars = useCall<Bars>(`bar_chart?${q}&by=${by}`, version);
  const rank = useCall<Ranked[]>(`sim_usage_rank?${q}&top=10`, version);
  const cursor = cursors.at(-1);
  const members = useCall<MembersPage>(`sims?${q}&pageSize=10${cursor ? `&cursor=${cursor}` : ''}`, version);
  const date = (d: string) => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${d.slice(0, 10)}T00:00:00Z`));

  const realTimeOption = (r: RealTime): EChartsOption => {
    const u = inUnit(Math.max(r.usageKb, r.limitKb), lang);
    return {
      tooltip: { trigger: 'axis', valueFormatter: (v) => u.format(Number(v)) },
      grid: { ...GRID, top: 8 },
      xAxis: { type: 'value', name: u.unit },
      yAxis: { type: 'category', data: [t('poolDash.limit'), t('poolDash.used')] },
      series: [
        {
          type: 'bar',
          barWidth: 28,
          data: [
            { value: u.of(r.limitKb), itemStyle: { color: '#8c8c8c' } },
            { value: u.of(r.usageKb), itemStyle: { color: r.usageKb > r.limitKb ? '#cf1322' : '#1677ff' } },
          ],
        },
      ],
    };
  };
  const lineOption = (l: Line): EChartsOption => {
    const u = inUnit(Math.max(l.limitKb, ...l.points.map((p) => p.cumulativeKb)), lang);
    return {
      tooltip: { trigger: 'axis', valueFormatter: (v) => u.format(Number(v)) },
      legend: { top: 0, right: 0 },
      grid: GRID,
      xAxis: { type: 'category', data: l.points.map((p) => p.day.slice(5)) },
      yAxis: { type: 'value', name: u.unit },
      series: [
        { name: t('poolDash.cumulative'), type: 'line', areaStyle: { opacity: 0.15 }, data: l.points.map((p) => u.of(p.cumulativeKb)) },
        { name: t('poolDash.limit'), type: 'line', symbol: 'none', lineStyle: { type: 'dashed' }, data: l.points.map(() => u.of(l.limitKb)) },
      ],
    };
  };
  const barOption = (b: Bars): EChartsOption => {
    const u = inUnit(Math.max(0, ...b.bars.map((x) => x.usageKb)), lang);
    const label = (k: string) => (b.by === 'day' ? k.slice(5) : t(`poolDash.group.${k}`));
    return {
      tooltip: { trigger: 'axis' },
      legend: { top: 0, right: 0 },
      grid: GRID,
      xAxis: { type: 'category', data: b.bars.map((x) => label(x.key)) },
      yAxis: [
        { type: 'value', name: u.unit },
        { type: 'value', name: 'SIM', minInterval: 1 },
      ],
      series: [
        {
          name: b.by === 'day' ? t('poolDash.daily') : t('poolDash.usage'),
          type: 'bar',
          data: b.bars.map((x) => u.of(x.usageKb)),
          tooltip: { valueFormatter: (v) => u.format(Number(v)) },
        },
        { name: t('poolDash.simsThatDay'), type: 'line', yAxisIndex: 1, data: b.bars.map((x) => x.sims) },
      ],
    };
  };
  const rankOption = (r: Ranked[]): EChartsOption => {
    const u = inUnit(Math.max(0, ...r.map((x) => x.usageKb)), lang);
    const rows = [...r].reverse();
    return {
      tooltip: { trigger: 'axis', valueFormatter: (v) => u.format(Number(v)) },
      grid: { ...GRID, top: 8 },
      xAxis: { type: 'value', name: u.unit },
      yAxis: { type: 'category', data: rows.map((x) => `…${x.iccid.slice(-6)}`) },
      series: [{ type: 'bar', data: rows.map((x) => ({ value: u.of(x.usageKb), itemStyle: { color: x.stopped ? '#cf1322' : '#1677ff' } })) }],
    };
  };

  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={12}>
          <ChartCard title={t('poolDash.realTime')} problem={rt.problem} loading={!rt.data}>
            {rt.data && (
              <>
                <Space wrap size="middle" style={{ marginBottom: 8 }}>
                  <Typography.Text strong>{t('poolDash.percent', { value: formatNumber(rt.data.percent, lang) })}</Typography.Text>
                  <Typography.Text type="secondary">
                    {formatKb(rt.data.usageKb, lang)} / {formatKb(rt.data.limitKb, lang)}
                  </Typography.Text>
                  <Typography.Text type="secondary">{t('poolDash.cycle', { from: date(rt.data.cycleStart), to: date(rt.data.cycleLastDay) })}</Typography.Text>
                  <Typography.Text type="secondary">{t('poolDash.sims', { activated: rt.data.activatedSims, total: rt.data.totalSims })}</Typography.Text>
                </Space>
                {rt.data.overage && (
                  <Alert
                    style={{ marginBottom: 8 }}
                    type="warning"
                    showIcon
                    message={t('poolDash.overage', {
                      at: new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(rt.data.overageAt ?? Date.now())),
                    })}
                    description={rt.data.stoppedSims > 0 ? t('poolDash.stopped', { count: rt.data.stoppedSims }) : undefined}
                  />
                )}
                <Chart option={realTimeOption(rt.data)} height={140} label={t('poolDash.realTime')} />
              </>
            )}
          </ChartCard>
        </Col>
        <Col xs={24} xl={12}>
          <ChartCard title={t('poolDash.line')} problem={line.problem} loading={!line.data}>
            {line.data && <Chart option={lineOption(line.data)} height={260} label={t('poolDash.line')} />}
          </ChartCard>
        </Col>
        <Col xs={24} xl={12}>
          <Card size="small" title={t('poolDash.bar')} style={{ height: '100%' }}>
            <Segmented
              size="small"
              style={{ marginBottom: 8 }}
              value={by}
              onChange={(v) => setBy(v as 'day' | 'group')}
              options={[
                { value: 'day', label: t('poolDash.byDay') },
                { value: 'group', label: t('poolDash.byGroup') },
              ]}
            />
            {bars.problem ? (
              <Alert type="error" showIcon message={bars.problem} />
            ) : bars.data ? (
              <Chart option={barOption(bars.data)} height={228} label={t('poolDash.bar')} />
            ) : (
              <Skeleton active />
            )}
          </Card>
        </Col>
        <Col xs={24} xl={12}>
          <ChartCard title={t('poolDash.rank')} problem={rank.problem} loading={!rank.data}>
            {rank.data &&
              (rank.data.some((r) => r.usageKb > 0) ? (
                <Chart option={rankOption(rank.data)} height={260} label={t('poolDash.rank')} />
              ) : (
                <Empty description={t('poolDash.empty')} />
              ))}
          </ChartCard>
        </Col>
      </Row>
      <Card
        size="small"
        title={t('poolDash.members')}
        extra={members.data && <Typography.Text type="secondary">{t('poolDash.total', { count: members.data.total })}</Typography.Text>}
      >
        {members.problem && <Alert type="error" showIcon message={members.problem} />}
        <Table<Member>
          size="small"
          rowKey="iccid"
          loading={!members.data && !members.problem}
          dataSource={members.data?.items ?? []}
          pagination={false}
          aria-label={t('poolDash.members')}
          columns={[
            { key: 'iccid', dataIndex: 'iccid', title: t('poolDash.iccid') },
            { key: 'status', dataIndex: 'status', title: t('poolDash.status'), render: (s: string) => t(`sims.enum.status.${s}`, { defaultValue: s }) },
            {
              key: 'state',
              title: t('poolDash.state'),
              render: (_: unknown, m: Member) =>
                m.stopped ? (
                  <Tag color="red">{t('poolDash.stoppedOne')}</Tag>
                ) : m.enrolled ? (
                  <Tag color="green">{t('poolDash.enrolled')}</Tag>
                ) : (
                  <Tag>{t('poolDash.waiting')}</Tag>
                ),
            },
            {
              key: 'joinedAt',
              dataIndex: 'joinedAt',
              title: t('poolDash.joinedAt'),
              render: (v: string) => (v ? new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }).format(new Date(v)) : '—'),
            },
            { key: 'usageKb', dataIndex: 'usageKb', title: t('poolDash.usage'), align: 'right', render: (v: number) => formatKb(v, lang) },
          ]}
        />
        <Space style={{ marginTop: 12 }}>
          <Button disabled={!cursors.length} onClick={() => setCursors([])}>
            {t('poolDash.first')}
          </Button>
          <Button disabled={!members.data?.nextCursor} onClick={() => members.data?.nextCursor && setCursors([...cursors, members.data.nextCursor])}>
            {t('poolDash.more')}
          </Button>
        </Space>
      </Card>
    </Space>
  );
}

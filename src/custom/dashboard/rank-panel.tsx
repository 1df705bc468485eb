/**
 * The ten SIMs that used the most data in the period, each ICCID opening its SIM page; for a large fleet, when the
 * server's stored top 10 was computed.
 */
import { Progress, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { formatKb } from '../../resources/cell';
import { Panel } from './panel';
import { SnapshotNote } from './snapshot-note';
import type { Call, Rank } from './use-dashboard';

export function RankPanel({ call, height }: { call: Call<Rank>; height: number }) {
  const { t, i18n } = useTranslation();
  const { lang } = useParams();
  return (
    <Panel
      title={t('analysis.rank.title')}
      extra={<SnapshotNote answer={call.data} text={(time) => t('analysis.snapshot.rank', { time })} hint={t('analysis.snapshot.rankHint')} />}
      call={call}
      height={height}
      isEmpty={(d) => d.items.length === 0}
      emptyText={t('analysis.rank.empty')}
    >
      {(d) => {
        const top = Math.max(1, ...d.items.map((i) => i.volumeKb));
        return (
          <Table
            size="small"
            pagination={false}
            rowKey="iccid"
            aria-label={t('analysis.rank.title')}
            dataSource={d.items.map((item, i) => ({ ...item, place: i + 1 }))}
            columns={[
              { key: 'place', dataIndex: 'place', title: '#', width: 40, render: (v: number) => <Typography.Text type="secondary">{v}</Typography.Text> },
              {
                key: 'iccid',
                dataIndex: 'iccid',
                title: t('sims.fields.iccid'),
                width: 210,
                render: (v: string) => (
                  <Link to={`/${lang}/sim/detail?iccid=${encodeURIComponent(v)}`} style={{ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', whiteSpace: 'nowrap' }}>
                    {v}
                  </Link>
                ),
              },
              {
                key: 'deviceName',
                dataIndex: 'deviceName',
                title: t('sims.fields.deviceName'),
                ellipsis: true,
                render: (v: string | null) => (v ? v : <Typography.Text type="secondary">—</Typography.Text>),
              },
              {
                key: 'volumeKb',
                dataIndex: 'volumeKb',
                title: t('analysis.rank.usage'),
                width: '34%',
                render: (v: number, row: { iccid: string }) => (
                  <div style={{ display: 'flex', alignItems: 'center', gap: 8 }}>
                    <Progress aria-label={`${t('analysis.rank.usage')} ${row.iccid}`} percent={(v / top) * 100} showInfo={false} size="small" strokeColor="#2f54eb" style={{ flex: 1, margin: 0 }} />
                    <span style={{ minWidth: 64, textAlign: 'right', whiteSpace: 'nowrap' }}>{formatKb(v, i18n.language)}</span>
                  </div>
                ),
              },
            ]}
          />
        );
      }}
    </Panel>
  );
}

/**
 * The ten SIMs that used the most data in the period, each ICCID opening its SIM page; for a large fleet, when the
 * server's stored top 10 was computed.
 *
 * A plain table in antd's small-table look, not antd's Table: ten rows without sorting, paging or selection do not
 * need its 53 KB (gzip) on the dashboard's first load (docs/decisions.md, "Dashboard weight and layout shift").
 */
import { theme, Typography } from 'antd';
import type { CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { formatKb } from '../../resources/cell';
import { Panel } from './panel';
import { SnapshotNote } from './snapshot-note';
import type { Call, Rank } from './use-dashboard';

const MONO = 'ui-monospace, SFMono-Regular, Menlo, monospace';

export function RankPanel({ call, height }: { call: Call<Rank>; height: number }) {
  const { t, i18n } = useTranslation();
  const { lang } = useParams();
  const { token } = theme.useToken();
  const cell: CSSProperties = {
    padding: '8px 8px',
    borderBottom: `1px solid ${token.colorBorderSecondary}`,
    overflow: 'hidden',
    textOverflow: 'ellipsis',
    whiteSpace: 'nowrap',
  };
  const head: CSSProperties = {
    ...cell,
    background: token.colorFillAlter,
    color: token.colorTextHeading,
    fontWeight: token.fontWeightStrong,
    textAlign: 'start',
  };
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
          <table
            aria-label={t('analysis.rank.title')}
            style={{ width: '100%', tableLayout: 'fixed', borderCollapse: 'collapse', fontSize: token.fontSize, lineHeight: '22px' }}
          >
            <colgroup>
              <col style={{ width: 40 }} />
              <col style={{ width: 210 }} />
              <col />
              <col style={{ width: '34%' }} />
            </colgroup>
            <thead>
              <tr>
                <th scope="col" style={{ ...head, borderStartStartRadius: token.borderRadiusLG }}>
                  #
                </th>
                <th scope="col" style={head}>
                  {t('sims.fields.iccid')}
                </th>
                <th scope="col" style={head}>
                  {t('sims.fields.deviceName')}
                </th>
                <th scope="col" style={{ ...head, borderStartEndRadius: token.borderRadiusLG }}>
                  {t('analysis.rank.usage')}
                </th>
              </tr>
            </thead>
            <tbody>
              {d.items.map((item, i) => (
                <tr key={item.iccid}>
                  <td style={cell}>
                    <Typography.Text type="secondary">{i + 1}</Typography.Text>
                  </td>
                  <td style={cell}>
                    <Link to={`/${lang}/sim/detail?iccid=${encodeURIComponent(item.iccid)}`} style={{ fontFamily: MONO }}>
                      {item.iccid}
                    </Link>
                  </td>
                  <td style={cell} title={item.deviceName ?? undefined}>
                    {item.deviceName ? item.deviceName : <Typography.Text type="secondary">—</Typography.Text>}
                  </td>
                  <td style={cell}>
                    <div style={{ display: 'flex', alignItems: 'center', gap: 8 }}>
                      {/* The figure beside it says the same in words: the bar is only drawn. */}
                      <div aria-hidden style={{ flex: 1, height: 6, borderRadius: 3, background: token.colorFillSecondary, overflow: 'hidden' }}>
                        <div style={{ width: `${(item.volumeKb / top) * 100}%`, height: '100%', borderRadius: 3, background: '#2f54eb' }} />
                      </div>
                      <span style={{ minWidth: 64, textAlign: 'right' }}>{formatKb(item.volumeKb, i18n.language)}</span>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        );
      }}
    </Panel>
  );
}

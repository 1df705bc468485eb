/** A SIM's CDRs of the last 31 days (SPEC.md section 5's span): its summary, then the records newest first, paged on the server. */
import { Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '../../../common/limits';
import { DateTime, formatDuration } from '../../components/date-time';
import { formatKb } from '../../resources/cell';
import { PagedTab } from './tab-frame';
import { simQuery } from './use-sim-data';
import { CdrSummary } from './cdr-summary';

interface Cdr {
  id: string;
  network: string;
  country: string | null;
  planCode: string | null;
  rat: string;
  direction: 'uplink' | 'downlink';
  volumeKb: number;
  startAt: string;
  endAt: string;
  durationS: number;
}

export function CdrsTab({ iccid }: { iccid: string }) {
  const { t, i18n } = useTranslation();
  const days = LIMITS.cdrSummaryDays;
  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <CdrSummary iccid={iccid} />
      <Typography.Text type="secondary">{t('simDetail.cdrs.note', { days })}</Typography.Text>
      <PagedTab<Cdr>
        url={`/api/main/sim/cdrs?${simQuery(iccid)}`}
        empty={t('simDetail.cdrs.empty', { days })}
        columns={[
          { key: 'network', title: t('cdrs.fields.network'), render: (_, c) => c.network },
          { key: 'plan', title: t('cdrs.fields.planCode'), render: (_, c) => c.planCode ?? '—' },
          { key: 'rat', title: t('cdrs.fields.rat'), render: (_, c) => t(`cdrs.enum.rat.${c.rat}`) },
          {
            key: 'direction',
            title: t('cdrs.fields.direction'),
            render: (_, c) => <Tag color={c.direction === 'uplink' ? 'blue' : 'purple'}>{t(`cdrs.enum.direction.${c.direction}`)}</Tag>,
          },
          { key: 'volume', title: t('cdrs.fields.volumeKb'), align: 'right', render: (_, c) => formatKb(c.volumeKb, i18n.language) },
          { key: 'start', title: t('cdrs.fields.startAt'), render: (_, c) => <DateTime value={c.startAt} /> },
          { key: 'end', title: t('cdrs.fields.endAt'), render: (_, c) => <DateTime value={c.endAt} /> },
          { key: 'duration', title: t('cdrs.fields.durationS'), align: 'right', render: (_, c) => formatDuration(c.durationS * 1000, i18n.language) },
        ]}
      />
    </Space>
  );
}

/** A SIM's SMS, newest first, paged on the server: direction (MO from the device, MT to it), status, content, times. */
import { Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { DateTime } from '../../components/date-time';
import { PagedTab } from './tab-frame';
import { simQuery } from './use-sim-data';

interface Sms {
  id: string;
  direction: 'MO' | 'MT';
  status: string;
  smsType: string;
  content: string;
  error: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

const STATUS_COLORS: Record<string, string> = { pending: 'gold', sent: 'blue', delivered: 'green', failed: 'red', received: 'cyan' };

export function SmsTab({ iccid }: { iccid: string }) {
  const { t } = useTranslation();
  return (
    <PagedTab<Sms>
      url={`/api/main/sim/sms?${simQuery(iccid)}`}
      empty={t('simDetail.sms.empty')}
      columns={[
        { key: 'time', title: t('simDetail.sms.time'), render: (_, s) => <DateTime value={s.createdAt} /> },
        {
          key: 'direction',
          title: t('simDetail.sms.direction'),
          render: (_, s) => <Tag color={s.direction === 'MO' ? 'cyan' : 'geekblue'}>{t(`simDetail.sms.directions.${s.direction}`)}</Tag>,
        },
        {
          key: 'status',
          title: t('simDetail.sms.status'),
          render: (_, s) => (
            <Tag color={STATUS_COLORS[s.status]} title={s.error ?? undefined}>
              {t(`simDetail.sms.statuses.${s.status}`)}
            </Tag>
          ),
        },
        {
          key: 'content',
          title: t('simDetail.sms.content'),
          render: (_, s) => (
            <Typography.Text code={s.smsType === 'binary'} style={{ maxWidth: 420 }} ellipsis={{ tooltip: s.content }}>
              {s.content}
            </Typography.Text>
          ),
        },
        { key: 'type', title: t('simDetail.sms.type'), render: (_, s) => t(`simDetail.sms.types.${s.smsType}`) },
        { key: 'delivered', title: t('simDetail.sms.delivered'), render: (_, s) => <DateTime value={s.deliveredAt} /> },
      ]}
    />
  );
}

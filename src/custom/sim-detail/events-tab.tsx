/**
 * A SIM's events, newest first, or only its status trace (each change from one status to the next), with the trace
 * as a CSV download in the interface language.
 */
import { ArrowRightOutlined, DownloadOutlined } from '@ant-design/icons';
import { Button, Segmented, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DateTime } from '../../components/date-time';
import { download, saveFile } from '../../providers/http';
import { PagedTab } from './tab-frame';
import { simQuery } from './use-sim-data';

interface SimEvent {
  id: string;
  type: string;
  fromStatus: string | null;
  toStatus: string | null;
  source: string;
  accountName: string | null;
  accountEmail: string | null;
  at: string;
}

const STATUS_COLORS: Record<string, string> = {
  active: 'green',
  pre_activated: 'blue',
  paused: 'orange',
  expired: 'red',
  inactive: 'default',
  terminated: 'default',
};

function EventList({ url, empty }: { url: string; empty: string }) {
  const { t } = useTranslation();
  const status = (s: string | null) => (s ? <Tag color={STATUS_COLORS[s]}>{t(`sims.enum.status.${s}`)}</Tag> : null);
  return (
    <PagedTab<SimEvent>
      url={url}
      empty={empty}
      columns={[
        { key: 'at', title: t('simDetail.events.at'), render: (_, e) => <DateTime value={e.at} /> },
        { key: 'type', title: t('simDetail.events.type'), render: (_, e) => t(`simDetail.events.types.${e.type}`) },
        {
          key: 'change',
          title: `${t('simDetail.events.from')} → ${t('simDetail.events.to')}`,
          render: (_, e) =>
            e.toStatus ? (
              <Space size={4}>
                {status(e.fromStatus) ?? <Typography.Text type="secondary">—</Typography.Text>}
                <ArrowRightOutlined aria-hidden />
                {status(e.toStatus)}
              </Space>
            ) : (
              <Typography.Text type="secondary">—</Typography.Text>
            ),
        },
        { key: 'source', title: t('simDetail.events.source'), render: (_, e) => t(`simDetail.events.sources.${e.source}`) },
        {
          key: 'account',
          title: t('simDetail.events.account'),
          render: (_, e) =>
            e.accountEmail ? <span title={e.accountEmail}>{e.accountName ?? e.accountEmail}</span> : <Typography.Text type="secondary">—</Typography.Text>,
        },
      ]}
    />
  );
}

export function EventsTab({ iccid }: { iccid: string }) {
  const { t } = useTranslation();
  const [view, setView] = useState<'all' | 'trace'>('all');
  const [busy, setBusy] = useState(false);
  const csv = async () => {
    setBusy(true);
    try {
      saveFile(await download('GET', `/api/main/sim/statusTraceDownload?${simQuery(iccid)}`), `status-trace-${iccid}.csv`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <Space wrap style={{ width: '100%', justifyContent: 'space-between' }}>
        <Segmented
          value={view}
          onChange={(v) => setView(v as 'all' | 'trace')}
          options={[
            { value: 'all', label: t('simDetail.events.all') },
            { value: 'trace', label: t('simDetail.events.trace') },
          ]}
        />
        <Button icon={<DownloadOutlined />} loading={busy} onClick={() => void csv()}>
          {t('simDetail.events.download')}
        </Button>
      </Space>
      {view === 'all' ? (
        <EventList key="all" url={`/api/main/sim/event?${simQuery(iccid)}`} empty={t('simDetail.events.empty')} />
      ) : (
        <EventList key="trace" url={`/api/main/sim/statusTrace?${simQuery(iccid)}`} empty={t('simDetail.events.emptyTrace')} />
      )}
    </Space>
  );
}

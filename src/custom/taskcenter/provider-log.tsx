/** A task's provider log (GET /rest/logs/provider/result/{id}): what the job worker and the network said while it ran. */
import { Alert, Drawer, Empty, Skeleton, Table, Tag } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DateTime } from '../../components/date-time';
import { api } from '../../providers/http';
import { useProviderLogTexts } from './texts';

interface LogLine {
  at: string;
  provider: 'worker' | 'network';
  level: 'info' | 'warn' | 'error';
  message: string;
  text: string;
}
interface ProviderLog {
  taskId: string;
  status: string;
  error: string | null;
  lines: LogLine[];
}

const LEVEL_COLORS = { info: 'blue', warn: 'gold', error: 'red' } as const;

export function ProviderLogDrawer({ task, onClose }: { task: { id: string; referenceId: string } | null; onClose: () => void }) {
  const { t } = useTranslation();
  const ready = useProviderLogTexts();
  const [log, setLog] = useState<ProviderLog | null>(null);
  useEffect(() => {
    if (!task) return;
    let live = true;
    setLog(null);
    api<ProviderLog>('GET', `/api/job/rest/logs/provider/result/${encodeURIComponent(task.id)}`).then(
      (l) => live && setLog(l),
      () => undefined,
    );
    return () => void (live = false);
  }, [task]);
  return (
    <Drawer
      open={task !== null}
      onClose={onClose}
      width={640}
      title={ready && task ? t('providerLog.title', { reference: task.referenceId }) : ''}
      destroyOnHidden
    >
      {!log || !ready ? (
        <Skeleton active />
      ) : (
        <>
          {log.error && <Alert type="warning" showIcon message={t('providerLog.error', { error: log.error })} style={{ marginBottom: 16 }} />}
          <Table<LogLine>
            size="small"
            rowKey={(l, i) => `${l.at}-${i}`}
            pagination={false}
            dataSource={log.lines}
            locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('providerLog.empty')} /> }}
            columns={[
              { key: 'at', title: t('providerLog.at'), width: 170, render: (_, l) => <DateTime value={l.at} /> },
              {
                key: 'provider',
                title: t('providerLog.provider'),
                width: 130,
                render: (_, l) => <Tag color={LEVEL_COLORS[l.level]}>{t(`providerLog.${l.provider}`)}</Tag>,
              },
              { key: 'text', title: t('providerLog.message'), dataIndex: 'text' },
            ]}
          />
        </>
      )}
    </Drawer>
  );
}

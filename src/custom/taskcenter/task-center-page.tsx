/**
 * The task center (SPEC.md sections 2, 3 and 9): my long jobs of the last 7 days, newest first, with their progress
 * pushed live; each job's provider log in a drawer; leaving while a task is processing asks Leave or Stay.
 */
import { useTable } from '@refinedev/antd';
import { DownloadOutlined, ProfileOutlined } from '@ant-design/icons';
import { Button, Card, Empty, Modal, Progress, Segmented, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBlocker } from 'react-router';
import { LIMITS } from '../../../common/limits';
import { DateTime, formatDuration } from '../../components/date-time';
import { api } from '../../providers/http';
import { TASKS_RESOURCE, type TaskRow } from './tasks';
import { ProviderLogDrawer } from './provider-log';
import { useCallsTexts } from '../calls/texts';

// Preset colours, not antd's status ones: a status tag writes #52c41a on #f6ffed (2.2:1); the presets' text is made
// readable by the theme (src/providers/readable-theme.ts).
const STATUS_COLORS: Record<TaskRow['status'], string> = { processing: 'blue', done: 'green', issues: 'gold' };
const withoutLang = (path: string) => path.replace(/^\/[^/]+/, '');

/** The task's file through a one-time link: the browser downloads it as a plain link, no token in the address bar. */
function DownloadReport({ taskId }: { taskId: string }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const go = async () => {
    setBusy(true);
    try {
      const { url } = await api<{ url: string }>('GET', `/api/job/rest/job/my/oneTimeToken?id=${encodeURIComponent(taskId)}`);
      const a = document.createElement('a');
      a.href = url;
      a.rel = 'noopener';
      a.click();
    } catch {
      // The HTTP helper has said why (the file expired).
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button type="link" size="small" icon={<DownloadOutlined />} loading={busy} onClick={() => void go()}>
      {t('tasks.download')}
    </Button>
  );
}

export function TaskCenterPage() {
  const { t, i18n } = useTranslation();
  const [status, setStatus] = useState<'all' | TaskRow['status']>('all');
  const [logOf, setLogOf] = useState<TaskRow | null>(null);
  const wordsReady = useCallsTexts();
  const { tableProps, tableQuery, setFilters } = useTable<TaskRow>({
    resource: TASKS_RESOURCE.name,
    meta: TASKS_RESOURCE.meta,
    syncWithLocation: false,
    pagination: { pageSize: 20 },
  });
  const processing = Number(tableQuery.data?.processing ?? 0);

  // Changing the language keeps the user here; any other destination asks while a task runs.
  const blocker = useBlocker(({ currentLocation, nextLocation }) => processing > 0 && withoutLang(currentLocation.pathname) !== withoutLang(nextLocation.pathname));

  const columns = [
    { title: t('tasks.referenceId'), dataIndex: 'referenceId', key: 'referenceId', fixed: 'left' as const },
    { title: t('tasks.task'), dataIndex: 'task', key: 'task', render: (v: string) => t(`tasks.kinds.${v}`, { defaultValue: v }) },
    {
      title: t('tasks.status'),
      dataIndex: 'status',
      key: 'status',
      render: (v: TaskRow['status'], row: TaskRow) =>
        v === 'processing' ? (
          <Space>
            <Tag color={STATUS_COLORS[v]}>{t(`tasks.statuses.${v}`)}</Tag>
            <Progress percent={row.progress} size="small" style={{ width: 90, margin: 0 }} aria-label={t('tasks.progress')} />
          </Space>
        ) : (
          <Tag color={STATUS_COLORS[v]}>{t(`tasks.statuses.${v}`)}</Tag>
        ),
    },
    { title: t('tasks.quantity'), dataIndex: 'quantity', key: 'quantity', align: 'right' as const, render: (v: number) => v.toLocaleString(i18n.language) },
    { title: t('tasks.start'), dataIndex: 'startedAt', key: 'startedAt', render: (v: string | null) => <DateTime value={v} /> },
    { title: t('tasks.end'), dataIndex: 'endedAt', key: 'endedAt', render: (v: string | null) => <DateTime value={v} /> },
    { title: t('tasks.elapsed'), dataIndex: 'elapsedMs', key: 'elapsedMs', render: (v: number | null) => (v === null ? '—' : formatDuration(v, i18n.language)) },
    { title: t('tasks.remark'), dataIndex: 'remark', key: 'remark', ellipsis: true, width: 220, render: (v: string | null) => v ?? '—' },
    {
      title: wordsReady ? t('calls.log.open') : '',
      key: 'log',
      render: (_: unknown, row: TaskRow) => (
        <Button type="link" size="small" icon={<ProfileOutlined />} onClick={() => setLogOf(row)} aria-label={`${t('calls.log.open')} ${row.referenceId}`}>
          {t('calls.log.open')}
        </Button>
      ),
    },
    {
      title: t('tasks.report'),
      dataIndex: 'hasReport',
      key: 'report',
      // The download stays in view at 1280 px, the columns between scrolling inside the table.
      fixed: 'right' as const,
      render: (has: boolean, row: TaskRow) => (has ? <DownloadReport taskId={row.id} /> : '—'),
    },
  ];

  return (
    <>
      <Typography.Title level={3}>{t('menu.taskcenter')}</Typography.Title>
      <Card>
        <Space style={{ marginBottom: 16, justifyContent: 'space-between', width: '100%' }} wrap>
          <Segmented
            aria-label={t('tasks.status')}
            value={status}
            onChange={(v) => {
              const next = v as typeof status;
              setStatus(next);
              setFilters(next === 'all' ? [] : [{ field: 'status', operator: 'eq', value: next }], 'replace');
            }}
            options={[
              { value: 'all', label: t('tasks.all') },
              { value: 'processing', label: t('tasks.statuses.processing') },
              { value: 'done', label: t('tasks.statuses.done') },
              { value: 'issues', label: t('tasks.statuses.issues') },
            ]}
          />
          <Typography.Text type="secondary">{t('tasks.window', { days: LIMITS.taskListDays })}</Typography.Text>
        </Space>
        <Table<TaskRow>
          {...tableProps}
          rowKey="id"
          size="middle"
          columns={columns}
          scroll={{ x: 'max-content' }}
          sticky={{ offsetScroll: 0 }}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tasks.empty', { days: LIMITS.taskListDays })} /> }}
        />
      </Card>
      <ProviderLogDrawer task={logOf} onClose={() => setLogOf(null)} />
      <Modal
        open={blocker.state === 'blocked'}
        title={t('tasks.leaveTitle')}
        okText={t('tasks.leave')}
        cancelText={t('tasks.stay')}
        onOk={() => blocker.proceed?.()}
        onCancel={() => blocker.reset?.()}
      >
        {t('tasks.leaveText', { count: processing })}
      </Modal>
    </>
  );
}

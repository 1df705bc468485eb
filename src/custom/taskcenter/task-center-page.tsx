/**
 * The task center (SPEC.md sections 2, 3 and 9): my long jobs of the last 7 days, newest first, with their progress
 * pushed live; each job's provider log in a drawer; leaving while a task is processing asks Leave or Stay.
 */
import { useTable } from '@refinedev/antd';
import { DownloadOutlined, ProfileOutlined } from '@ant-design/icons';
import { Button, Card, Empty, Flex, Modal, Progress, Segmented, Space, Table, Tag, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBlocker } from 'react-router';
import { LIMITS } from '../../../common/limits';
import { DateTime, formatDuration } from '../../components/date-time';
import { api } from '../../providers/http';
import { store } from '../../providers/session-store';
import { useSessionValue } from '../../providers/use-session-value';
import { currentAbility } from '../../shell/ability';
import { ORG_TASKS_LIST, TASKS_RESOURCE, type TaskRow } from './tasks';
import { ProviderLogDrawer } from './provider-log';
import { useProviderLogTexts } from './texts';
import { formatNumber } from '../../../common/numbers';
import { Cut, FIT_TABLE } from '../../components/list-parts';

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
    <Tooltip title={t('tasks.download')}>
      <Button type="text" size="small" icon={<DownloadOutlined />} loading={busy} onClick={() => void go()} aria-label={t('tasks.download')} />
    </Tooltip>
  );
}

/** A reference (ACT-20261128-001001) on one line, or in a narrow column on two after its last hyphen. */
function ReferenceId({ value }: { value: string }) {
  const at = value.lastIndexOf('-') + 1;
  return (
    <>
      <span style={{ whiteSpace: 'nowrap' }}>{value.slice(0, at)}</span>
      <wbr />
      <span style={{ whiteSpace: 'nowrap' }}>{value.slice(at)}</span>
    </>
  );
}

export function TaskCenterPage() {
  const { t, i18n } = useTranslation();
  const [status, setStatus] = useState<'all' | TaskRow['status']>('all');
  const [logOf, setLogOf] = useState<TaskRow | null>(null);
  const wordsReady = useProviderLogTexts();
  useSessionValue('permissions');
  // A person sees their own tasks; an administrator the organisation's, each row saying who started it. The account
  // and organisation are part of the query's key, so one person's answer is never shown to the next in this tab.
  const everyone = currentAbility().can('readAll', 'task');
  const { tableProps, tableQuery, setFilters } = useTable<TaskRow>({
    resource: TASKS_RESOURCE.name,
    meta: { ...TASKS_RESOURCE.meta, ...(everyone ? { list: ORG_TASKS_LIST } : {}), account: store.get('userId'), org: store.get('partnerCode') },
    syncWithLocation: false,
    pagination: { pageSize: 20 },
  });
  const processing = Number(tableQuery.data?.processing ?? 0);

  // Changing the language keeps the user here; any other destination asks while a task runs.
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => processing > 0 && withoutLang(currentLocation.pathname) !== withoutLang(nextLocation.pathname),
  );

  const columns = [
    { title: t('tasks.referenceId'), dataIndex: 'referenceId', key: 'referenceId', fixed: 'left' as const, render: (v: string) => <ReferenceId value={v} /> },
    // Chinese task names break between words, not between any two characters ("SIM 激活", never "SIM 激 / 活").
    // At least 8em wide however the table is squeezed (a column's width is only a wish in an auto-sized table): two-word
    // kinds take a line each ("Bundle coverage / export"), not three. The remark gives way instead: it ends in an ellipsis.
    {
      title: t('tasks.task'),
      dataIndex: 'task',
      key: 'task',
      width: 140,
      onCell: () => ({ style: { wordBreak: 'keep-all' as const } }),
      render: (v: string) => <div style={{ minWidth: '8em' }}>{t(`tasks.kinds.${v}`, { defaultValue: v })}</div>,
    },
    ...(everyone
      ? [
          {
            title: t('tasks.startedBy'),
            dataIndex: 'startedBy',
            key: 'startedBy',
            width: 130,
            render: (v: string | undefined, row: TaskRow) => (row.mine ? <Tag color="blue">{t('tasks.you')}</Tag> : <Cut text={v || '—'} min={64} />),
          },
        ]
      : []),
    {
      title: t('tasks.status'),
      dataIndex: 'status',
      key: 'status',
      render: (v: TaskRow['status'], row: TaskRow) =>
        v === 'processing' ? (
          <Flex vertical gap={4} align="start">
            <Tag color={STATUS_COLORS[v]}>{t(`tasks.statuses.${v}`)}</Tag>
            <Progress percent={row.progress} size="small" style={{ width: 90, margin: 0 }} aria-label={t('tasks.progress')} />
          </Flex>
        ) : (
          <Tag color={STATUS_COLORS[v]}>{t(`tasks.statuses.${v}`)}</Tag>
        ),
    },
    { title: t('tasks.quantity'), dataIndex: 'quantity', key: 'quantity', align: 'right' as const, render: (v: number) => formatNumber(v, i18n.language) },
    {
      // Start over end, each on one line (without the year: the list covers the last days), the whole time in a title.
      title: (
        <>
          <div>{t('tasks.start')}</div>
          <div>{t('tasks.end')}</div>
        </>
      ),
      key: 'time',
      render: (_: unknown, row: TaskRow) => (
        <>
          <div>
            <DateTime value={row.startedAt} oneLine withoutYear />
          </div>
          <div>
            <DateTime value={row.endedAt} oneLine withoutYear />
          </div>
        </>
      ),
    },
    {
      title: t('tasks.elapsed'),
      dataIndex: 'elapsedMs',
      key: 'elapsedMs',
      onCell: () => ({ style: { whiteSpace: 'nowrap' as const } }),
      render: (v: number | null) => (v === null ? '—' : formatDuration(v, i18n.language)),
    },
    // A long remark (a file's name, an ICCID) ends in an ellipsis, the whole of it in its title.
    { title: t('tasks.remark'), dataIndex: 'remark', key: 'remark', width: 180, render: (v: string | null) => <Cut text={v ?? '—'} min={64} /> },
    {
      // The task's provider log and its report file, as icons with their names in tooltips: the column stays narrow
      // and in view should the table still be wider than its card (the columns wrap to fit first).
      title: t('tasks.report'),
      key: 'report',
      fixed: 'right' as const,
      render: (_: unknown, row: TaskRow) => (
        <Space size={0}>
          <Tooltip title={wordsReady ? t('providerLog.open') : ''}>
            <Button
              type="text"
              size="small"
              icon={<ProfileOutlined />}
              onClick={() => setLogOf(row)}
              aria-label={`${t('providerLog.open')} ${row.referenceId}`}
            />
          </Tooltip>
          {row.hasReport && <DownloadReport taskId={row.id} />}
        </Space>
      ),
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
          <Typography.Text type="secondary">{t(everyone ? 'tasks.windowAll' : 'tasks.window', { days: LIMITS.taskListDays })}</Typography.Text>
        </Space>
        <Table<TaskRow>
          {...tableProps}
          rowKey="id"
          size="middle"
          columns={columns}
          {...FIT_TABLE}
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

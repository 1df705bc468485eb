/** A schedule's execution history (each run: time, targets, sent, failed, its records) and its operation log. */
import { Empty, Table, Tag, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useTimeFormat } from '../../components/date-time';
import { PagedTable, usePaging } from '../../components/list-parts';
import { schedulesApi, type LogEntry, type Page, type Run, type RunRecord } from './api';

const RUN_COLORS: Record<Run['status'], string> = { running: 'blue', done: 'green', partial: 'gold', failed: 'red', skipped: 'default' };
const RECORD_COLORS: Record<string, string> = { pending: 'default', sent: 'blue', delivered: 'green', failed: 'red' };

/** The records of one run, paged on the server. */
function RunRecords({ taskId, runId, version }: { taskId: string; runId: string; version: number }) {
  const { t } = useTranslation();
  const time = useTimeFormat();
  const paging = usePaging(10);
  const { page } = paging;
  const [data, setData] = useState<Page<RunRecord> | null>(null);
  useEffect(
    () => void schedulesApi.records({ taskId, runId, page, pageSize: 10 }).then(setData, () => setData({ items: [], total: 0 })),
    [taskId, runId, page, version],
  );
  return (
    <PagedTable<RunRecord>
      size="small"
      data={data}
      paging={paging}
      pager={{ showSizeChanger: false }}
      empty={t('smsSchedules.noRecords')}
      columns={[
        { title: 'ICCID', dataIndex: 'iccid' },
        { title: 'MSISDN', dataIndex: 'msisdn', render: (v: string | null) => v ?? '—' },
        {
          title: t('smsSchedules.fields.status'),
          dataIndex: 'status',
          render: (v: string) => <Tag color={RECORD_COLORS[v]}>{t(`smsSchedules.recordStatus.${v}`, { defaultValue: v })}</Tag>,
        },
        { title: t('smsSchedules.fields.sentAt'), dataIndex: 'sentAt', render: (v: string | null) => (v ? time(v) : '—') },
        { title: t('smsSchedules.fields.error'), dataIndex: 'error', render: (v: string | null) => v ?? '' },
      ]}
    />
  );
}

export function RunHistory({ taskId, runs, version = 0 }: { taskId: string; runs: Run[]; version?: number }) {
  const { t } = useTranslation();
  const time = useTimeFormat();
  return (
    <Table<Run>
      rowKey="id"
      size="middle"
      dataSource={runs}
      pagination={{ pageSize: 10, hideOnSinglePage: true }}
      locale={{ emptyText: <Empty description={t('smsSchedules.noRuns')} /> }}
      expandable={{ expandedRowRender: (r) => <RunRecords taskId={taskId} runId={r.id} version={version} />, rowExpandable: (r) => r.status !== 'skipped' }}
      columns={[
        { title: t('smsSchedules.fields.runAt'), dataIndex: 'occurrenceAt', render: (v: string) => time(v) },
        {
          title: t('smsSchedules.fields.status'),
          dataIndex: 'status',
          render: (v: Run['status']) => <Tag color={RUN_COLORS[v]}>{t(`smsSchedules.runStatus.${v}`)}</Tag>,
        },
        { title: t('smsSchedules.fields.targets'), dataIndex: 'targets', align: 'right' },
        { title: t('smsSchedules.fields.sent'), dataIndex: 'sent', align: 'right' },
        { title: t('smsSchedules.fields.failed'), dataIndex: 'failed', align: 'right' },
      ]}
    />
  );
}

/** A recorded value as text: lists joined (long ones shortened), times as times, yes and no. */
function useShow() {
  const { t } = useTranslation();
  const time = useTimeFormat();
  return (field: string, v: unknown): string => {
    if (v === null || v === undefined || v === '') return '—';
    if (Array.isArray(v)) return v.length > 5 ? `${v.slice(0, 5).join(', ')} … (${v.length})` : v.join(', ') || '—';
    if (typeof v === 'boolean') return t(v ? 'smsSchedules.yes' : 'smsSchedules.no');
    if ((field === 'startAt' || field === 'endAt') && typeof v === 'string') return time(v);
    if (field === 'status' || field === 'mode' || field === 'smsType') return t(`smsSchedules.${field}.${String(v)}`, { defaultValue: String(v) });
    return String(v);
  };
}

export function OperationLog({ taskId }: { taskId: string }) {
  const { t } = useTranslation();
  const time = useTimeFormat();
  const show = useShow();
  const paging = usePaging(10);
  const { page } = paging;
  const [data, setData] = useState<Page<LogEntry> | null>(null);
  const load = useCallback(() => schedulesApi.log({ id: taskId, page, pageSize: 10 }).then(setData, () => setData({ items: [], total: 0 })), [taskId, page]);
  useEffect(() => void load(), [load]);
  return (
    <PagedTable<LogEntry>
      data={data}
      paging={paging}
      pager={{ showSizeChanger: false, hideOnSinglePage: true }}
      empty={t('smsSchedules.noLog')}
      columns={[
        { title: t('smsSchedules.fields.at'), dataIndex: 'at', width: 220, render: (v: string) => time(v) },
        { title: t('smsSchedules.fields.actor'), key: 'actor', width: 220, render: (_: unknown, e) => e.actor ?? e.actorEmail ?? t('smsSchedules.system') },
        {
          title: t('smsSchedules.fields.action'),
          dataIndex: 'action',
          width: 120,
          render: (v: string) => <Tag>{t(`smsSchedules.logAction.${v}`, { defaultValue: v })}</Tag>,
        },
        {
          title: t('smsSchedules.fields.changes'),
          key: 'changes',
          render: (_: unknown, e) =>
            e.action === 'create' || e.action === 'delete' || e.action === 'export' ? (
              <Typography.Text type="secondary">{t(`smsSchedules.logSummary.${e.action}`)}</Typography.Text>
            ) : (
              <ul style={{ margin: 0, paddingInlineStart: 18 }}>
                {e.changes.map((c) => (
                  <li key={c.field}>
                    <Typography.Text strong>{t(`smsSchedules.fields.${c.field}`, { defaultValue: c.field })}</Typography.Text>: {show(c.field, c.before)} →{' '}
                    {show(c.field, c.after)}
                  </li>
                ))}
              </ul>
            ),
        },
      ]}
    />
  );
}

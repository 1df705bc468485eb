/**
 * The scheduled SMS of the organisation (SPEC.md section 2, scheduleSmsDetails without an id): name, when it sends,
 * status, next and last run, targets; enable or disable and delete after a confirmation; a row opens its details.
 */
import { PlusOutlined } from '@ant-design/icons';
import { Button, Card, Select, Space, Tag, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { useTimeFormat } from '../../components/date-time';
import { PagedTable, usePaging } from '../../components/list-parts';
import { useDebouncedValue } from '../../components/use-debounced-value';
import { LimitedSearch, useSearchable } from '../../components/limited-search';
import { LIMITS } from '../../../common/limits';
import { schedulesApi, weekdayNames, type Page, type Schedule } from './api';
import { canCreate, DeleteButton, ToggleButton } from './schedule-actions';

/** When a schedule sends, in words: "Once" or "Mon, Wed · 09:00 Europe/Berlin". */
export function useWhen(): (s: Pick<Schedule, 'mode' | 'weekdays' | 'sendTime' | 'timezone'>) => string {
  const { t, i18n } = useTranslation();
  const names = weekdayNames(i18n.language);
  return (s) =>
    s.mode === 'once'
      ? `${t('smsSchedules.mode.once')} · ${s.sendTime} ${s.timezone}`
      : `${s.weekdays.map((d) => names[d - 1]).join(', ')} · ${s.sendTime} ${s.timezone}`;
}

export function StatusTag({ schedule }: { schedule: Pick<Schedule, 'status' | 'locked' | 'finished'> }) {
  const { t } = useTranslation();
  if (schedule.locked) return <Tag color="blue">{t('smsSchedules.status.executing')}</Tag>;
  // Nothing more will happen (the server says so): neither enabled nor switchable.
  if (schedule.finished) return <Tag>{t('smsSchedules.status.finished')}</Tag>;
  return <Tag color={schedule.status === 'enabled' ? 'green' : 'default'}>{t(`smsSchedules.status.${schedule.status}`)}</Tag>;
}

export function ScheduleList() {
  const { t } = useTranslation();
  const { lang } = useParams();
  const navigate = useNavigate();
  const time = useTimeFormat();
  const when = useWhen();
  const paging = usePaging();
  const { page, pageSize, setPage } = paging;
  const [name, setName] = useState('');
  const [status, setStatus] = useState<string | undefined>();
  const search = useSearchable(useDebouncedValue(name), LIMITS.scheduledSmsName.max);
  const [data, setData] = useState<Page<Schedule> | null>(null);
  const load = useCallback(
    () =>
      schedulesApi
        .list({ page, pageSize, ...(search.trim() ? { name: search.trim() } : {}), ...(status ? { status } : {}) })
        .then(setData, () => setData({ items: [], total: 0 })),
    [page, pageSize, search, status],
  );
  useEffect(() => void load(), [load]);
  const open = (id: string) => `/${lang}/scheduleSmsDetails?id=${encodeURIComponent(id)}`;

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <Typography.Title level={3} style={{ margin: 0 }}>
          {t('menu.scheduleSmsDetails')}
        </Typography.Title>
        {canCreate() && (
          <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(`/${lang}/scheduleSmsAdd`)}>
            {t('smsSchedules.new')}
          </Button>
        )}
      </Space>
      <Card>
        <Space style={{ marginBottom: 16 }} wrap align="start">
          <LimitedSearch
            max={LIMITS.scheduledSmsName.max}
            allowClear
            placeholder={t('smsSchedules.searchName')}
            aria-label={t('smsSchedules.searchName')}
            value={name}
            onChange={(e) => (setName(e.target.value), setPage(1))}
            style={{ width: 260 }}
          />
          <Select
            allowClear
            placeholder={t('smsSchedules.fields.status')}
            aria-label={t('smsSchedules.fields.status')}
            style={{ width: 160 }}
            value={status}
            onChange={(v) => (setStatus(v), setPage(1))}
            options={['enabled', 'disabled'].map((s) => ({ value: s, label: t(`smsSchedules.status.${s}`) }))}
          />
        </Space>
        <PagedTable<Schedule>
          data={data}
          paging={paging}
          empty={t('smsSchedules.none')}
          columns={[
            { title: t('smsSchedules.fields.name'), dataIndex: 'name', render: (v: string, s) => <Link to={open(s.id)}>{v}</Link> },
            { title: t('smsSchedules.fields.when'), key: 'when', render: (_: unknown, s) => when(s) },
            { title: t('smsSchedules.fields.status'), key: 'status', width: 110, render: (_: unknown, s) => <StatusTag schedule={s} /> },
            { title: t('smsSchedules.fields.nextRunAt'), dataIndex: 'nextRunAt', render: (v: string | null) => (v ? time(v) : '—') },
            { title: t('smsSchedules.fields.lastRunAt'), dataIndex: 'lastRunAt', render: (v: string | null) => (v ? time(v) : '—') },
            { title: t('smsSchedules.fields.targets'), dataIndex: 'targetCount', align: 'right', width: 90 },
            {
              title: t('smsSchedules.actions'),
              key: 'actions',
              width: 110,
              fixed: 'right',
              render: (_: unknown, s) => (
                <Space size="small">
                  <ToggleButton compact schedule={s} onDone={() => void load()} />
                  <DeleteButton compact schedule={s} onDone={() => void load()} />
                </Space>
              ),
            },
          ]}
        />
      </Card>
    </>
  );
}

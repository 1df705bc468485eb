/**
 * One scheduled SMS (SPEC.md section 2, scheduleSmsDetails?id=): what it sends, to how many SIMs, when (the coming
 * runs in the schedule's own zone, so a daylight-saving change shows before it happens), its execution history with
 * each run's records (following the live stream: a message of this schedule delivered or failed, a run ended), and
 * the operation log. Edit, enable or disable, delete, and its reports through the task center.
 */
import { ArrowLeftOutlined, DownloadOutlined, EditOutlined } from '@ant-design/icons';
import { Alert, App, Button, Card, Descriptions, Dropdown, Result, Skeleton, Space, Tabs, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { useTimeFormat } from '../../components/date-time';
import { useLiveSms } from '../sms/live-sms';
import { schedulesApi, type ScheduleDetail } from './api';
import { OperationLog, RunHistory } from './run-history';
import { canManage, DeleteButton, ToggleButton } from './schedule-actions';
import { StatusTag, useWhen } from './schedule-list';

/** An instant as the wall clock of a zone reads it ("Mon 29 Mar, 09:00"). */
const inZone = (iso: string, zone: string, lang: string) =>
  new Intl.DateTimeFormat(lang, { timeZone: zone, weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }).format(new Date(iso));

export function ScheduleDetails({ id }: { id: string }) {
  const { t, i18n } = useTranslation();
  const { lang } = useParams();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const time = useTimeFormat();
  const when = useWhen();
  const [s, setS] = useState<ScheduleDetail | null | 'missing'>(null);
  const load = useCallback(() => schedulesApi.detail(id).then(setS, () => setS('missing')), [id]);
  useEffect(() => void load(), [load]);
  // A change of this schedule's messages or runs: the details and the records shown are asked for again.
  const [version, setVersion] = useState(0);
  useLiveSms((change) => {
    if (!change.scheduleIds.includes(id)) return;
    void load();
    setVersion((v) => v + 1);
  });
  const list = `/${lang}/scheduleSmsDetails`;
  if (s === null) return <Skeleton active />;
  if (s === 'missing') return <Result status="404" title={t('smsSchedules.missing')} extra={<Link to={list}>{t('smsSchedules.backToList')}</Link>} />;

  const report = async (kind: 'mt' | 'mo' | 'sims') => {
    await schedulesApi.report(kind, s.id);
    void message.success(
      <span>
        {t('smsSchedules.reportStarted')} <a onClick={() => navigate(`/${lang}/taskcenter`)}>{t('smsSchedules.openTasks')}</a>
      </span>,
    );
  };

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <Space align="center">
          <Link to={list} aria-label={t('smsSchedules.backToList')}>
            <ArrowLeftOutlined />
          </Link>
          <Typography.Title level={3} style={{ margin: 0 }}>
            {s.name}
          </Typography.Title>
          <StatusTag schedule={s} />
        </Space>
        <Space wrap>
          {canManage(s) && !s.finished && (
            <Button icon={<EditOutlined />} disabled={s.locked} onClick={() => navigate(`/${lang}/scheduleSmsAdd?id=${encodeURIComponent(s.id)}`)}>
              {t('smsSchedules.edit')}
            </Button>
          )}
          <ToggleButton schedule={s} onDone={() => void load()} />
          <DeleteButton schedule={s} onDone={() => navigate(list)} />
          <Dropdown
            menu={{
              items: (['mt', 'mo', 'sims'] as const).map((k) => ({ key: k, label: t(`smsSchedules.reports.${k}`) })),
              onClick: ({ key }) => void report(key as 'mt' | 'mo' | 'sims').catch(() => undefined),
            }}
          >
            <Button icon={<DownloadOutlined />}>{t('smsSchedules.reports.title')}</Button>
          </Dropdown>
        </Space>
      </Space>
      {s.locked && <Alert type="info" showIcon style={{ marginBottom: 16 }} message={t('smsSchedules.inProgress')} />}
      {s.finished && <Alert type="info" showIcon style={{ marginBottom: 16 }} message={t('smsSchedules.finishedHint')} />}
      <Card style={{ marginBottom: 16 }}>
        <Descriptions column={{ xs: 1, md: 2, xl: 3 }} size="small">
          <Descriptions.Item label={t('smsSchedules.fields.content')}>
            <Typography.Text code style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
              {s.content}
            </Typography.Text>
          </Descriptions.Item>
          <Descriptions.Item label={t('smsSchedules.fields.smsType')}>{t(`smsSchedules.smsType.${s.smsType}`)}</Descriptions.Item>
          <Descriptions.Item label={t('smsSchedules.fields.when')}>{when(s)}</Descriptions.Item>
          <Descriptions.Item label={t('smsSchedules.fields.startAt')}>{time(s.startAt)}</Descriptions.Item>
          {s.mode === 'repeated' && (
            <Descriptions.Item label={t('smsSchedules.fields.endAt')}>{s.neverEnds ? t('smsSchedules.neverEnds') : time(s.endAt)}</Descriptions.Item>
          )}
          <Descriptions.Item label={t('smsSchedules.fields.targets')}>{s.targetCount}</Descriptions.Item>
          <Descriptions.Item label={t('smsSchedules.fields.nextRunAt')}>{s.nextRunAt ? time(s.nextRunAt) : '—'}</Descriptions.Item>
          <Descriptions.Item label={t('smsSchedules.fields.lastRunAt')}>{s.lastRunAt ? time(s.lastRunAt) : '—'}</Descriptions.Item>
          <Descriptions.Item label={t('smsSchedules.fields.emailNotify')}>{s.emailNotify ? s.notifyEmails.join(', ') : t('smsSchedules.no')}</Descriptions.Item>
          <Descriptions.Item label={t('smsSchedules.fields.creator')}>{s.creator ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('smsSchedules.fields.createdAt')}>{time(s.createdAt)}</Descriptions.Item>
        </Descriptions>
        {s.upcoming.length > 0 && (
          <div style={{ marginTop: 12 }}>
            <Typography.Text type="secondary">{t('smsSchedules.upcoming', { zone: s.timezone })} </Typography.Text>
            {s.upcoming.map((u) => inZone(u, s.timezone, i18n.language)).join(' · ')}
          </div>
        )}
      </Card>
      <Card>
        <Tabs
          items={[
            { key: 'history', label: t('smsSchedules.history'), children: <RunHistory taskId={s.id} runs={s.runs} version={version} /> },
            { key: 'log', label: t('smsSchedules.operationLog'), children: <OperationLog taskId={s.id} /> },
          ]}
        />
      </Card>
    </>
  );
}

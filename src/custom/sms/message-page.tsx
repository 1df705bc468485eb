/**
 * All SMS (SPEC.md section 2, `message`): the organisation's SMS paged, sorted and filtered on the server, each with
 * its thread underneath (an answer within 24 hours: the device's reply to an MT, the operator's to an MO). Statuses
 * follow the network over the live stream (an SMS of the organisation delivered, failed or answered: the page asks for
 * itself again); only while the stream is down and an SMS is on its way does it ask every 30 s. Operators, admins and
 * superadmins send and reply; users only read. SIMs ticked in the SIM list arrive in the send form (router state).
 */
import { ReloadOutlined, SendOutlined } from '@ant-design/icons';
import { Button, Card, Empty, Flex, Space, Table, Tag, Typography } from 'antd';
import type { SorterResult } from 'antd/es/table/interface';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { DateTime } from '../../components/date-time';
import { api } from '../../providers/http';
import { ExportButton } from '../../resources/export-button';
import { currentAbility } from '../../shell/ability';
import { SmsFilters, type Filters } from './sms-filters';
import { ReplyDialog } from './sms-compose';
import { SendDrawer } from './send-drawer';
import { useLiveSms } from './live-sms';
import { ON_ITS_WAY, STATUS_COLORS, type Quota, type SmsPage, type SmsRow } from './sms-types';
import { TextStatistic } from '../../components/text-statistic';
import { formatNumber } from '../../../common/numbers';
import { FIT_TABLE, shrinkable } from '../../components/list-parts';

const PAGE_SIZE = 20;
/** The slow refresh while the live stream is down. */
const FALLBACK_MS = 30_000;
/** How long after it was sent an SMS on its way is watched. */
const WATCH_MS = 15 * 60_000;
const MONO = { fontFamily: 'ui-monospace, monospace' };

export function MessagePage() {
  const { t, i18n } = useTranslation();
  const { lang } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const canSend = currentAbility().can('sendSms', 'sim');
  const canExport = currentAbility().can('export', 'sim');
  const [filters, setFilters] = useState<Filters>({});
  const [sort, setSort] = useState<{ sort?: string; order?: 'asc' | 'desc' }>({});
  const [page, setPage] = useState(1);
  const [data, setData] = useState<SmsPage | null>(null);
  const [loading, setLoading] = useState(false);
  const [quota, setQuota] = useState<Quota | null>(null);
  const [replyTo, setReplyTo] = useState<SmsRow | null>(null);
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const preset = useMemo(() => ((location.state as { sendTo?: string[] } | null)?.sendTo ?? []).filter((i) => typeof i === 'string'), [location.state]);
  const [sending, setSending] = useState(canSend && preset.length > 0);

  const body = useMemo(() => ({ ...filters, ...sort }), [filters, sort]);
  const load = useCallback(
    (quiet = false) => {
      if (!quiet) setLoading(true);
      return api<SmsPage>('POST', '/api/main/sms/list', { ...body, page, pageSize: PAGE_SIZE }, { quiet })
        .then(setData, () => !quiet && setData({ items: [], total: 0 }))
        .finally(() => setLoading(false));
    },
    [body, page],
  );
  const loadQuota = useCallback(() => api<Quota>('GET', '/api/main/sms/org/remain_usage', undefined, { quiet: true }).then(setQuota, () => undefined), []);
  useEffect(() => void load(), [load]);
  useEffect(() => void loadQuota(), [loadQuota]);
  useEffect(() => setPage(1), [body]);
  // Statuses follow the network's reports as the live stream brings them: any change of the organisation's SMS (a
  // new reply may belong on this page without any of its ids on it) asks for the page again; a failure gave a unit back.
  const live = useLiveSms((change) => {
    void load(true);
    if (change.statuses.includes('failed')) void loadQuota();
  });
  // The stream down: ask again slowly while a recent SMS is on its way (one stuck for longer waits for a reload).
  const waiting = (r: SmsRow) => ON_ITS_WAY.has(r.status) && Date.now() - Date.parse(r.createdAt) < WATCH_MS;
  const moving = !!data?.items.some((r) => waiting(r) || r.replies?.some(waiting));
  useEffect(() => {
    if (live || !moving) return;
    const timer = setTimeout(() => void load(true), FALLBACK_MS);
    return () => clearTimeout(timer);
  }, [live, moving, data, load]);

  const refresh = () => {
    void load(true);
    void loadQuota();
  };
  const closeSend = () => {
    setSending(false);
    // The SIMs picked in the list are used once: a reload or a way back does not open the form again.
    if (preset.length) void navigate(location.pathname + location.search, { replace: true, state: null });
  };
  const n = (v: number) => formatNumber(v, i18n.language);
  const expanded = (data?.items ?? []).filter((r) => r.replies?.length && !collapsed.has(r.id)).map((r) => r.id);
  const filtered = Object.values(filters).some((v) => v !== undefined);

  const columns = [
    // Two lines (date, time) like the ICCID and number beside it.
    { key: 'createdAt', title: t('sms.fields.createdAt'), sorter: true, width: 120, render: (_: unknown, r: SmsRow) => <DateTime value={r.createdAt} /> },
    {
      key: 'iccid',
      title: `${t('sms.fields.iccid')} / ${t('sms.fields.msisdn')}`,
      sorter: true,
      render: (_: unknown, r: SmsRow) => (
        <Space direction="vertical" size={0}>
          <Link to={`/${lang}/sim/detail?iccid=${encodeURIComponent(r.iccid)}&tab=sms`} style={MONO}>
            {r.iccid}
          </Link>
          {r.msisdn && (
            <Typography.Text type="secondary" style={{ ...MONO, fontSize: 12 }}>
              {r.msisdn}
            </Typography.Text>
          )}
        </Space>
      ),
    },
    { key: 'direction', title: t('sms.fields.direction'), render: (_: unknown, r: SmsRow) => <Direction row={r} /> },
    {
      key: 'content',
      title: t('sms.fields.content'),
      width: 280,
      render: (_: unknown, r: SmsRow) => (
        <Flex gap={8} align="center" style={shrinkable(140)}>
          <Content row={r} />
          {canSend && r.direction === 'MO' && (
            <Button size="small" onClick={() => setReplyTo(r)}>
              {t('sms.reply')}
            </Button>
          )}
        </Flex>
      ),
    },
    { key: 'status', title: t('sms.fields.status'), sorter: true, render: (_: unknown, r: SmsRow) => <StatusTag row={r} /> },
    { key: 'sender', title: t('sms.fields.sender'), width: 180, render: (_: unknown, r: SmsRow) => <Sender row={r} /> },
  ];

  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <Space style={{ width: '100%', justifyContent: 'space-between' }} wrap>
        <Typography.Title level={3} style={{ margin: 0 }}>
          {t('sms.allSms')}
        </Typography.Title>
        <Space size="middle" wrap align="end">
          {quota && (
            <TextStatistic
              title={t('sms.balance')}
              value={n(quota.remaining)}
              suffix={
                <Typography.Text type="secondary" style={{ fontSize: 14 }}>
                  / {n(quota.quota)}
                </Typography.Text>
              }
            />
          )}
          <Button icon={<ReloadOutlined />} onClick={refresh} aria-label={t('sms.reload')} />
          {canExport && <ExportButton call="POST /api/main/sms/list/download" filters={() => body} ticked={[]} total={data?.total ?? 0} />}
          {canSend && (
            <Button type="primary" icon={<SendOutlined />} onClick={() => setSending(true)}>
              {t('sms.send')}
            </Button>
          )}
        </Space>
      </Space>
      <Card>
        <div style={{ marginBottom: 16 }}>
          <SmsFilters value={filters} onChange={setFilters} />
        </div>
        <Table<SmsRow>
          rowKey="id"
          size="small"
          loading={loading}
          {...FIT_TABLE}
          dataSource={data?.items ?? []}
          columns={columns}
          locale={{ emptyText: <Empty description={filtered ? t('sms.empty') : t('sms.emptyAll')} /> }}
          pagination={{
            current: page,
            pageSize: PAGE_SIZE,
            total: data?.total ?? 0,
            showSizeChanger: false,
            onChange: setPage,
            showTotal: (total) => t('sms.total', { n: n(total) }),
          }}
          onChange={(_p, _f, s) => {
            const one = s as SorterResult<SmsRow>;
            setSort(one.order ? { sort: String(one.columnKey), order: one.order === 'ascend' ? 'asc' : 'desc' } : {});
          }}
          expandable={{
            // The thread's cell spans the table from this column: its header names it for screen readers.
            columnTitle: <span className="visually-hidden">{t('sms.replies')}</span>,
            expandedRowKeys: expanded,
            rowExpandable: (r) => !!r.replies?.length,
            onExpand: (open, r) =>
              setCollapsed((c) => {
                const next = new Set(c);
                if (open) next.delete(r.id);
                else next.add(r.id);
                return next;
              }),
            expandedRowRender: (r) => <Thread replies={r.replies ?? []} canReply={canSend} onReply={setReplyTo} />,
          }}
        />
      </Card>
      {canSend && <SendDrawer open={sending} preset={preset} quota={quota} onClose={closeSend} onSent={refresh} />}
      <ReplyDialog row={replyTo} onClose={() => setReplyTo(null)} onSent={refresh} />
    </Space>
  );
}

/** The content; binary shown as code with its type. */
function Content({ row }: { row: SmsRow }) {
  const { t } = useTranslation();
  return (
    <Flex gap={4} align="center" style={{ flex: '0 1 auto', minWidth: 0 }}>
      {row.smsType === 'binary' && <Tag bordered={false}>{t('sms.smsType.binary')}</Tag>}
      <Typography.Text code={row.smsType === 'binary'} style={{ maxWidth: 240, minWidth: 0 }} ellipsis={{ tooltip: row.content }}>
        {row.content}
      </Typography.Text>
    </Flex>
  );
}

/** MT or MO, short in the table, whole in its tooltip. */
function Direction({ row }: { row: SmsRow }) {
  const { t } = useTranslation();
  return (
    <Tag color={row.direction === 'MO' ? 'cyan' : 'geekblue'} title={t(`sms.direction.${row.direction}`)}>
      {t(`sms.directionShort.${row.direction}`)}
    </Tag>
  );
}

function StatusTag({ row }: { row: SmsRow }) {
  const { t } = useTranslation();
  return (
    <Tag color={STATUS_COLORS[row.status]} title={row.error ?? undefined} data-status={row.status}>
      {t(`sms.status.${row.status}`)}
    </Tag>
  );
}

function Sender({ row }: { row: SmsRow }) {
  const { t } = useTranslation();
  if (row.direction === 'MO') return <Typography.Text type="secondary">{t('sms.device')}</Typography.Text>;
  const who = row.scheduleName ? t('sms.schedule', { name: row.scheduleName }) : (row.accountName ?? '—');
  return (
    <Typography.Text style={{ ...shrinkable(90), display: 'block', maxWidth: 160 }} ellipsis={{ tooltip: who }}>
      {who}
    </Typography.Text>
  );
}

/** The answers under a message, oldest first. */
function Thread({ replies, canReply, onReply }: { replies: SmsRow[]; canReply: boolean; onReply: (r: SmsRow) => void }) {
  const { t } = useTranslation();
  return (
    <ul aria-label={t('sms.thread', { count: replies.length })} style={{ listStyle: 'none', margin: 0, paddingLeft: 24 }}>
      {replies.map((r) => (
        <li key={r.id} style={{ display: 'flex', gap: 12, alignItems: 'center', padding: '4px 0', flexWrap: 'wrap' }}>
          <Typography.Text type="secondary">↳ {t('sms.replyLabel')}</Typography.Text>
          <DateTime value={r.createdAt} />
          <Direction row={r} />
          <Content row={r} />
          {canReply && r.direction === 'MO' && (
            <Button size="small" onClick={() => onReply(r)}>
              {t('sms.reply')}
            </Button>
          )}
          <StatusTag row={r} />
          <Sender row={r} />
        </li>
      ))}
    </ul>
  );
}

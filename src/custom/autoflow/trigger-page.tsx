/**
 * trigger: one rule's run history, the SIMs in its scope and try-it-out (?id= names the rule, without it one
 * is chosen). Runs are filtered by outcome and ICCID and show each action's outcome; the SIMs download as CSV;
 * try-it-out shows the exact body the rule's webhook would receive and sends it to the organisation's webhook, with
 * the answer shown. The menu keeps autoflow highlighted.
 */
import { DownloadOutlined, EditOutlined, SendOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Descriptions, Empty, Select, Skeleton, Space, Tabs, Tag, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { DateTime, useTimeFormat } from '../../components/date-time';
import { PagedTable, usePaging } from '../../components/list-parts';
import { useDebouncedValue } from '../../components/use-debounced-value';
import { LimitedSearch, useSearchable } from '../../components/limited-search';
import { saveFile } from '../../providers/http';
import { canWrite } from './access';
import { ACTION_OUTCOMES, ACTION_TYPES, type RuleAction, type RuleScope, type RuleTrigger } from '../../../common/autoflow-rule';
import { autoflowApi, type ActionOutcome, type ChangeRecord, type Page, type Rule, type Run, type ScopeSim, type WebhookBody } from './api';
import { useAutoflowTexts } from './texts';
import { poolIdsOf, usePoolNames } from './pool-names';
import { actionWords, scopeWords, triggerWords } from './words';
import { formatNumber } from '../../../common/numbers';

/**
 * A table that scrolls sideways is a region the keyboard can reach (axe: scrollable-region-focusable): its rows hold
 * no link or button to focus. antd renders the scroller itself, so it is named and made focusable after each render.
 */
function useFocusableScroll(label: string) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    for (const el of ref.current?.querySelectorAll<HTMLElement>('.ant-table-content') ?? []) {
      el.tabIndex = 0;
      el.setAttribute('role', 'region');
      el.setAttribute('aria-label', label);
    }
  });
  return ref;
}

/** The run history's ICCID search: the server takes at most 20 characters, an ICCID's longest. */
const ICCID_SEARCH_MAX = 20;
/** The run history finds the runs of one SIM, by its whole ICCID: 18 to 20 digits. */
const ICCID_WHOLE = { min: 18, max: ICCID_SEARCH_MAX };
const isWholeIccid = (v: string) => new RegExp(`^\\d{${ICCID_WHOLE.min},${ICCID_WHOLE.max}}$`).test(v);

/**
 * Why an ICCID typed in the run history is not searched (the words' key and values), or null when it is searched or
 * nothing is typed. Too long is said by the search box itself.
 */
function iccidSearchNote(text: string): [string, Record<string, number>?] | null {
  const v = text.trim();
  if (!v || v.length > ICCID_SEARCH_MAX || isWholeIccid(v)) return null;
  if (!/^\d+$/.test(v)) return ['resources.searchDigits'];
  return ['autoflow.searchIccidWhole', ICCID_WHOLE];
}
const RUN_STATUSES = ['pending', 'success', 'failed', 'skipped'] as const;
const COLORS: Record<string, string> = {
  success: 'green',
  done: 'green',
  failed: 'red',
  pending: 'blue',
  queued: 'blue',
  sending: 'blue',
  retrying: 'orange',
  skipped: 'default',
};

export function TriggerPage() {
  const [params] = useSearchParams();
  const id = params.get('id');
  if (!useAutoflowTexts()) return <Skeleton active />;
  return id ? <RuleHistory key={id} id={id} /> : <ChooseRule />;
}

/** Without a rule named: pick one. */
function ChooseRule() {
  const { t } = useTranslation();
  const { lang } = useParams();
  const navigate = useNavigate();
  const [rules, setRules] = useState<Rule[] | null>(null);
  useEffect(
    () =>
      void autoflowApi.list({ page: 1, pageSize: 100 }).then(
        (p) => setRules(p.items),
        () => setRules([]),
      ),
    [],
  );
  return (
    <>
      <Typography.Title level={3}>{t('menu.trigger')}</Typography.Title>
      <Card>
        <Space direction="vertical" style={{ width: '100%' }}>
          <label htmlFor="autoflow-pick">{t('autoflow.pickRule')}</label>
          <Select
            id="autoflow-pick"
            showSearch
            optionFilterProp="label"
            loading={rules === null}
            style={{ width: 360 }}
            placeholder={t('autoflow.pickRule')}
            options={(rules ?? []).map((r) => ({ value: r.id, label: r.name }))}
            onChange={(v: string) => navigate(`/${lang}/trigger?id=${encodeURIComponent(v)}`)}
          />
          {rules?.length === 0 && <Empty description={t('autoflow.none')} />}
        </Space>
      </Card>
    </>
  );
}

function RuleHistory({ id }: { id: string }) {
  const { t, i18n } = useTranslation();
  const { lang } = useParams();
  const navigate = useNavigate();
  const [rule, setRule] = useState<Rule | null>(null);
  useEffect(() => void autoflowApi.detail(id).then(setRule, () => navigate(`/${lang}/autoflow`)), [id, lang, navigate]);
  const pools = usePoolNames(poolIdsOf([rule?.scope]));
  if (!rule) return <Skeleton active />;
  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <Space wrap>
          <Typography.Title level={3} style={{ margin: 0 }}>
            {rule.name}
          </Typography.Title>
          <Tag color={rule.status === 'enabled' ? 'green' : 'default'}>{t(`autoflow.status.${rule.status}`)}</Tag>
        </Space>
        <Space wrap>
          <Link to={`/${lang}/autoflow`}>{t('autoflow.backToList')}</Link>
          {canWrite('update') && (
            <Button icon={<EditOutlined />} onClick={() => navigate(`/${lang}/workFlowOperation?id=${encodeURIComponent(rule.id)}`)}>
              {t('autoflow.edit')}
            </Button>
          )}
        </Space>
      </Space>
      <Card style={{ marginBottom: 16 }}>
        <Descriptions size="small" column={{ xs: 1, md: 2, xl: 3 }}>
          <Descriptions.Item label={t('autoflow.fields.trigger')}>{triggerWords(t, i18n.language, rule.trigger)}</Descriptions.Item>
          <Descriptions.Item label={t('autoflow.fields.scope')}>{scopeWords(t, i18n.language, rule.scope, pools)}</Descriptions.Item>
          <Descriptions.Item label={t('autoflow.fields.actions')}>{rule.actions.map((a) => actionWords(t, a)).join(' → ')}</Descriptions.Item>
        </Descriptions>
      </Card>
      <Card>
        <Tabs
          items={[
            { key: 'runs', label: t('autoflow.runs'), children: <Runs rule={rule} /> },
            { key: 'sims', label: t('autoflow.simsInScope'), children: <Sims rule={rule} /> },
            { key: 'try', label: t('autoflow.tryItOut'), children: <TryItOut rule={rule} /> },
            { key: 'changes', label: t('autoflow.changes'), children: <Changes rule={rule} /> },
          ]}
        />
      </Card>
    </>
  );
}

/** What the run was about: the event's subtype and its data in a line (a scheduled crossing: what was measured). */
function eventLine(t: TFunction, lang: string, run: Run): string {
  const scheduled = (run.detail as { scheduled?: { value?: number | null; valueUnit?: string; percent?: number } } | null)?.scheduled;
  if (scheduled) {
    if (scheduled.value === undefined || scheduled.value === null) return '—';
    const unit = scheduled.valueUnit ? ` ${scheduled.valueUnit}` : scheduled.percent !== undefined ? ' %' : '';
    return t('autoflow.measured', { value: `${formatNumber(scheduled.value, lang)}${unit}` });
  }
  const e = run.detail?.event;
  if (!e) return '—';
  const data = Object.entries(e.data ?? {})
    .filter(([k]) => k !== 'iccid')
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(', ');
  return `${e.type}.${e.subtype}${data ? ` (${data})` : ''}`;
}

function Runs({ rule }: { rule: Rule }) {
  const { t, i18n } = useTranslation();
  const runsScroll = useFocusableScroll(t('autoflow.runs'));
  const paging = usePaging();
  const { page, pageSize, setPage } = paging;
  const [status, setStatus] = useState<string | undefined>();
  const [actionType, setActionType] = useState<string | undefined>();
  const [actionOutcome, setActionOutcome] = useState<string | undefined>();
  const [iccidText, setIccidText] = useState('');
  const iccid = useSearchable(useDebouncedValue(iccidText), ICCID_SEARCH_MAX).trim();
  const note = iccidSearchNote(iccidText);
  const [data, setData] = useState<Page<Run> | null>(null);
  const load = useCallback(
    () =>
      autoflowApi
        .runs(rule.id, { page, pageSize, status, actionType, actionOutcome, iccid: isWholeIccid(iccid) ? iccid : undefined })
        .then(setData, () => setData({ items: [], total: 0 })),
    [rule.id, page, pageSize, status, actionType, actionOutcome, iccid],
  );
  // The rule's own kinds of action first; an action filter of a kind the rule does not have finds nothing.
  const types = [...new Set([...rule.actions.map((a) => a.type), ...ACTION_TYPES])];
  useEffect(() => void load(), [load]);
  const outcomes = (run: Run) => {
    // Runs written before actions carried their own outcome name only their types: the run's outcome is theirs.
    const named = (run.detail as { actions?: unknown } | null)?.actions;
    const list = (Array.isArray(run.actions) ? run.actions : Array.isArray(named) ? named.map((type) => ({ type })) : []) as ActionOutcome[];
    if (!list.length) return '—';
    return (
      <Space size={[0, 4]} wrap>
        {list.map((a, i) => {
          const outcome = a.outcome ?? run.status;
          return (
            <Tag key={i} color={COLORS[outcome]}>
              {actionWords(t, a)}: {t(`autoflow.outcome.${outcome}`, { defaultValue: outcome })}
            </Tag>
          );
        })}
      </Space>
    );
  };
  return (
    <>
      <Space style={{ marginBottom: 16 }} wrap align="start">
        <Select
          allowClear
          placeholder={t('autoflow.fields.outcome')}
          aria-label={t('autoflow.fields.outcome')}
          style={{ width: 160 }}
          value={status}
          onChange={(v) => (setStatus(v), setPage(1))}
          options={RUN_STATUSES.map((s) => ({ value: s, label: t(`autoflow.outcome.${s}`) }))}
        />
        <Select
          allowClear
          placeholder={t('autoflow.fields.actionType')}
          aria-label={t('autoflow.fields.actionType')}
          style={{ width: 180 }}
          value={actionType}
          onChange={(v) => (setActionType(v), setPage(1))}
          options={types.map((a) => ({ value: a, label: t(`autoflow.action.enum.type.${a}`) }))}
        />
        <Select
          allowClear
          placeholder={t('autoflow.fields.actionOutcome')}
          aria-label={t('autoflow.fields.actionOutcome')}
          style={{ width: 180 }}
          value={actionOutcome}
          onChange={(v) => (setActionOutcome(v), setPage(1))}
          options={ACTION_OUTCOMES.map((o) => ({ value: o, label: t(`autoflow.outcome.${o}`) }))}
        />
        <LimitedSearch
          max={ICCID_SEARCH_MAX}
          note={note && t(note[0], note[1])}
          allowClear
          placeholder={t('autoflow.searchIccid')}
          aria-label={t('autoflow.searchIccid')}
          value={iccidText}
          style={{ width: 260 }}
          onChange={(e) => (setIccidText(e.target.value), setPage(1))}
        />
        <Button onClick={() => void load()}>{t('autoflow.refresh')}</Button>
      </Space>
      <div ref={runsScroll}>
        <PagedTable<Run>
          data={data}
          paging={paging}
          empty={t('autoflow.noRuns')}
          columns={[
            { title: t('autoflow.fields.executedAt'), dataIndex: 'at', width: 180, render: (v: string) => <DateTime value={v} /> },
            { title: 'ICCID', dataIndex: 'iccid', width: 200, render: (v: string | null) => v ?? '—' },
            {
              title: t('autoflow.fields.trigger'),
              dataIndex: 'trigger',
              width: 150,
              render: (v: string) => t(`autoflow.trigger.enum.type.${v}`, { defaultValue: v }),
            },
            { title: t('autoflow.fields.detail'), key: 'detail', ellipsis: true, width: 200, render: (_: unknown, r) => eventLine(t, i18n.language, r) },
            {
              title: t('autoflow.fields.outcome'),
              dataIndex: 'status',
              width: 110,
              render: (v: string) => <Tag color={COLORS[v]}>{t(`autoflow.outcome.${v}`, { defaultValue: v })}</Tag>,
            },
            { title: t('autoflow.fields.actionOutcomes'), key: 'actions', width: 280, render: (_: unknown, r) => outcomes(r) },
          ]}
        />
      </div>
    </>
  );
}

/** A part of a rule in words, as the change records show it before and after. */
function partWords(t: TFunction, lang: string, time: (v: string) => string, field: string, value: unknown, pools: ReadonlyMap<string, string>): string {
  if (value === null || value === undefined || value === '') return '—';
  switch (field) {
    case 'trigger':
      return triggerWords(t, lang, value as RuleTrigger);
    case 'scope':
      return scopeWords(t, lang, value as RuleScope, pools);
    case 'actions':
      return (value as RuleAction[]).map((a) => actionWords(t, a)).join(' → ');
    case 'status':
      return t(`autoflow.status.${String(value)}`, { defaultValue: String(value) });
    case 'activationAt':
    case 'expiryAt':
      return time(String(value));
    default:
      return String(value);
  }
}
const CHANGE_FIELDS = ['name', 'status', 'trigger', 'scope', 'actions', 'activationAt', 'expiryAt'] as const;
const fieldLabel = (t: TFunction, f: string) => (f === 'activationAt' || f === 'expiryAt' ? t(`autoflow.settings.fields.${f}`) : t(`autoflow.fields.${f}`));

/** Who changed the rule, when, how, and each part that changed: before → after (a new rule's parts as they began). */
function Changes({ rule }: { rule: Rule }) {
  const { t, i18n } = useTranslation();
  const time = useTimeFormat();
  const paging = usePaging();
  const { page, pageSize } = paging;
  const changesScroll = useFocusableScroll(t('autoflow.changes'));
  const [data, setData] = useState<Page<ChangeRecord> | null>(null);
  useEffect(() => void autoflowApi.changes(rule.id, { page, pageSize }).then(setData, () => setData({ items: [], total: 0 })), [rule.id, page, pageSize]);
  const pools = usePoolNames(
    poolIdsOf((data?.items ?? []).flatMap((c) => [c.before?.scope as RuleScope | undefined, c.after?.scope as RuleScope | undefined])),
  );
  const lines = (c: ChangeRecord) => {
    const before = c.before ?? {};
    const after = c.after ?? {};
    const changed = CHANGE_FIELDS.filter((f) => (f in before || f in after) && JSON.stringify(before[f] ?? null) !== JSON.stringify(after[f] ?? null));
    if (!changed.length) return '—';
    return (
      <ul style={{ margin: 0, paddingInlineStart: 16 }}>
        {changed.map((f) => (
          <li key={f}>
            {c.action === 'create'
              ? t('autoflow.changeValue', { field: fieldLabel(t, f), value: partWords(t, i18n.language, time, f, after[f], pools) })
              : t('autoflow.changeLine', {
                  field: fieldLabel(t, f),
                  before: partWords(t, i18n.language, time, f, before[f], pools),
                  after: partWords(t, i18n.language, time, f, after[f], pools),
                })}
          </li>
        ))}
      </ul>
    );
  };
  return (
    <div ref={changesScroll}>
      <PagedTable<ChangeRecord>
        data={data}
        paging={paging}
        empty={t('autoflow.noChanges')}
        columns={[
          { title: t('autoflow.fields.changedAt'), dataIndex: 'at', width: 180, render: (v: string) => <DateTime value={v} /> },
          { title: t('autoflow.fields.changedBy'), dataIndex: 'accountEmail', width: 220, render: (v: string | null) => v ?? '—' },
          {
            title: t('autoflow.fields.changeKind'),
            dataIndex: 'action',
            width: 110,
            render: (v: string) => <Tag>{t(`autoflow.changeAction.${v}`, { defaultValue: v })}</Tag>,
          },
          { title: t('autoflow.fields.change'), key: 'change', render: (_: unknown, c) => lines(c) },
        ]}
      />
    </div>
  );
}

function Sims({ rule }: { rule: Rule }) {
  const { t } = useTranslation();
  const paging = usePaging();
  const { page, pageSize } = paging;
  const [data, setData] = useState<Page<ScopeSim> | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => void autoflowApi.sims(rule.id, { page, pageSize }).then(setData, () => setData({ items: [], total: 0 })), [rule.id, page, pageSize]);
  return (
    <>
      <Space style={{ marginBottom: 16, width: '100%', justifyContent: 'space-between' }} wrap>
        <Typography.Text>{t('autoflow.simCount', { count: data?.total ?? 0 })}</Typography.Text>
        <Button
          icon={<DownloadOutlined />}
          loading={busy}
          disabled={!data?.total}
          onClick={() => {
            setBusy(true);
            void autoflowApi
              .simsCsv(rule.id)
              .then((f) => saveFile(f, `autoflow-${rule.id}-sims.csv`))
              .finally(() => setBusy(false));
          }}
        >
          {t('autoflow.downloadCsv')}
        </Button>
      </Space>
      <PagedTable<ScopeSim>
        rowKey="iccid"
        data={data}
        paging={paging}
        empty={t('autoflow.noSims')}
        columns={[
          { title: 'ICCID', dataIndex: 'iccid' },
          { title: t('autoflow.fields.simStatus'), dataIndex: 'status', render: (v: string) => t(`sims.enum.status.${v}`) },
          {
            title: t('autoflow.scope.fields.productType'),
            dataIndex: 'productType',
            render: (v: string) => t(`autoflow.scope.enum.productType.${v}`, { defaultValue: v }),
          },
          { title: t('autoflow.scope.fields.tags'), dataIndex: 'tags', render: (v: string[]) => (v.length ? v.map((x) => <Tag key={x}>{x}</Tag>) : '—') },
        ]}
      />
    </>
  );
}

function TryItOut({ rule }: { rule: Rule }) {
  const { t } = useTranslation();
  const [body, setBody] = useState<WebhookBody | null>(null);
  const [failed, setFailed] = useState(false);
  const [sending, setSending] = useState(false);
  const [answer, setAnswer] = useState<{ httpCode: number | null; error: string | null; delivered: boolean } | null>(null);
  const show = useCallback(() => {
    setFailed(false);
    void autoflowApi.tryBody(rule.id).then(setBody, () => setFailed(true));
  }, [rule.id]);
  useEffect(show, [show]);
  const notifies = rule.actions.some((a) => a.type === 'webhook');
  return (
    <Space direction="vertical" style={{ width: '100%' }} size="middle">
      <Typography.Paragraph style={{ margin: 0 }}>{t('autoflow.tryHelp')}</Typography.Paragraph>
      {!notifies && <Alert type="info" showIcon message={t('autoflow.noWebhookAction')} />}
      <Space wrap>
        <Button onClick={show}>{t('autoflow.regenerate')}</Button>
        {canWrite('update') && (
          <Button
            type="primary"
            icon={<SendOutlined />}
            loading={sending}
            onClick={() => {
              setSending(true);
              setAnswer(null);
              void autoflowApi
                .trySend(rule.id)
                .then(
                  (r) => (setBody(r.body), setAnswer(r)),
                  () => undefined,
                )
                .finally(() => setSending(false));
            }}
          >
            {t('autoflow.sendNow')}
          </Button>
        )}
      </Space>
      {answer && (
        <Alert
          type={answer.delivered ? 'success' : 'error'}
          showIcon
          message={
            answer.delivered
              ? t('autoflow.sent', { code: answer.httpCode ?? '—' })
              : t('autoflow.notSent', { code: answer.httpCode ?? '—', error: answer.error ?? '—' })
          }
        />
      )}
      {failed && <Alert type="error" showIcon message={t('autoflow.bodyFailed')} />}
      {body ? (
        <div>
          <Typography.Text strong id="autoflow-body-label">
            {t('autoflow.webhookBody')}
          </Typography.Text>
          <pre
            role="region"
            aria-labelledby="autoflow-body-label"
            tabIndex={0}
            className="af-json"
            style={{ background: '#f5f5f5', color: '#1f1f1f', padding: 12, borderRadius: 6, overflow: 'auto', maxHeight: 420, marginTop: 8 }}
          >
            {JSON.stringify(body, null, 2)}
          </pre>
        </div>
      ) : (
        !failed && <Skeleton active />
      )}
    </Space>
  );
}

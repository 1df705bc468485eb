/**
 * autoflow: the organisation's automation rules (SPEC.md section 2), kept alive: name, trigger, scope,
 * actions, an enable switch, last run, run count, creator; search by name and filters by status, trigger and action.
 * Without the autoflow write right no write control is drawn (the server refuses such writes with SPEC.md's text).
 */
import { DeleteOutlined, DownOutlined, EditOutlined, HistoryOutlined, PlusOutlined } from '@ant-design/icons';
import { App, Button, Card, Dropdown, Empty, Select, Skeleton, Space, Switch, Tag, Tooltip, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { ACTION_TYPES, TRIGGER_TYPES } from '../../../common/autoflow-rule';
import { DateTime } from '../../components/date-time';
import { ConfirmDelete, Cut, PagedTable, usePaging } from '../../components/list-parts';
import { useDebouncedValue } from '../../components/use-debounced-value';
import { LimitedSearch, useSearchable } from '../../components/limited-search';
import { LIMITS } from '../../../common/limits';
import { canWrite } from './access';
import { autoflowApi, type Page, type Rule } from './api';
import { TEMPLATE_KEYS } from './templates';
import { confirmEnable } from './enable-confirm';
import { useAutoflowTexts } from './texts';
import { poolIdsOf, usePoolNames } from './pool-names';
import { actionWords, scopeWords, triggerWords } from './words';
import { formatNumber } from '../../../common/numbers';

export function AutoflowPage() {
  return useAutoflowTexts() ? <RuleList /> : <Skeleton active />;
}

function RuleList() {
  const { t, i18n } = useTranslation();
  const paging = usePaging();
  const { page, pageSize, setPage } = paging;
  const { lang } = useParams();
  const navigate = useNavigate();
  const { message, modal } = App.useApp();
  const [name, setName] = useState('');
  const [status, setStatus] = useState<string | undefined>();
  const [trigger, setTrigger] = useState<string | undefined>();
  const [actionType, setActionType] = useState<string | undefined>();
  const search = useSearchable(useDebouncedValue(name), LIMITS.autoflowName.max);
  const [data, setData] = useState<Page<Rule> | null>(null);
  const pools = usePoolNames(poolIdsOf((data?.items ?? []).map((r) => r.scope)));
  const load = useCallback(
    () =>
      autoflowApi
        .list({ page, pageSize, search: search.trim() || undefined, status, trigger, actionType })
        .then(setData, () => setData({ items: [], total: 0 })),
    [page, pageSize, search, status, trigger, actionType],
  );
  useEffect(() => void load(), [load]);
  // Kept alive: coming back from the builder or the history shows what changed there.
  useEffect(() => {
    const again = () => void load();
    window.addEventListener('autoflow:changed', again);
    return () => window.removeEventListener('autoflow:changed', again);
  }, [load]);

  const builder = (q = '') => `/${lang}/workFlowOperation${q}`;
  const filtered = !!(search.trim() || status || trigger || actionType);
  const mayCreate = canWrite('create');
  const mayUpdate = canWrite('update');
  const mayDelete = canWrite('delete');
  const templates = (
    <Dropdown
      trigger={['click']}
      menu={{ items: TEMPLATE_KEYS.map((k) => ({ key: k, label: t(`autoflow.templates.${k}`) })), onClick: ({ key }) => navigate(builder(`?template=${key}`)) }}
    >
      <Button>
        {t('autoflow.fromTemplate')} <DownOutlined aria-hidden />
      </Button>
    </Dropdown>
  );

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <Typography.Title level={3} style={{ margin: 0 }}>
          {t('menu.autoflow')}
        </Typography.Title>
        {mayCreate && (
          <Space wrap>
            {templates}
            <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(builder())}>
              {t('autoflow.newRule')}
            </Button>
          </Space>
        )}
      </Space>
      <Card>
        <Space style={{ marginBottom: 16 }} wrap align="start">
          <LimitedSearch
            max={LIMITS.autoflowName.max}
            allowClear
            placeholder={t('autoflow.searchName')}
            aria-label={t('autoflow.searchName')}
            value={name}
            onChange={(e) => (setName(e.target.value), setPage(1))}
            style={{ width: 240 }}
          />
          <Select
            allowClear
            placeholder={t('autoflow.fields.status')}
            aria-label={t('autoflow.fields.status')}
            style={{ width: 150 }}
            value={status}
            onChange={(v) => (setStatus(v), setPage(1))}
            options={['enabled', 'disabled'].map((s) => ({ value: s, label: t(`autoflow.status.${s}`) }))}
          />
          <Select
            allowClear
            placeholder={t('autoflow.fields.trigger')}
            aria-label={t('autoflow.fields.trigger')}
            style={{ width: 220 }}
            value={trigger}
            onChange={(v) => (setTrigger(v), setPage(1))}
            options={TRIGGER_TYPES.map((s) => ({ value: s, label: t(`autoflow.trigger.enum.type.${s}`) }))}
          />
          <Select
            allowClear
            placeholder={t('autoflow.fields.actions')}
            aria-label={t('autoflow.fields.actions')}
            style={{ width: 200 }}
            value={actionType}
            onChange={(v) => (setActionType(v), setPage(1))}
            options={ACTION_TYPES.map((s) => ({ value: s, label: t(`autoflow.action.enum.type.${s}`) }))}
          />
        </Space>
        <PagedTable<Rule>
          data={data}
          paging={paging}
          empty={
            filtered ? (
              t('autoflow.noMatch')
            ) : (
              <Empty description={t('autoflow.none')}>
                {mayCreate && (
                  <Space wrap style={{ justifyContent: 'center' }}>
                    {TEMPLATE_KEYS.map((k) => (
                      <Button key={k} onClick={() => navigate(builder(`?template=${k}`))}>
                        {t(`autoflow.templates.${k}`)}
                      </Button>
                    ))}
                  </Space>
                )}
              </Empty>
            )
          }
          columns={[
            {
              title: t('autoflow.fields.name'),
              dataIndex: 'name',
              fixed: 'left',
              width: 200,
              // A name wraps between its words, on two lines at most (then cut with an ellipsis); the whole name shows
              // on hover and on focus. Kept on one line, a name set its column's minimum width and squeezed the rule's
              // trigger and scope into a word per line at 1280 px. A word longer than the column is cut, not broken.
              render: (v: string, r) => (
                <Tooltip title={v} trigger={['hover', 'focus']} placement="topLeft">
                  <Link
                    to={`/${lang}/trigger?id=${encodeURIComponent(r.id)}`}
                    className="af-rule-name"
                    style={{ display: '-webkit-box', WebkitBoxOrient: 'vertical', WebkitLineClamp: 2, overflow: 'hidden', overflowWrap: 'break-word' }}
                  >
                    {v}
                  </Link>
                </Tooltip>
              ),
            },
            {
              title: t('autoflow.fields.status'),
              key: 'status',
              width: 70,
              render: (_: unknown, r) =>
                mayUpdate ? (
                  <Switch
                    size="small"
                    checked={r.status === 'enabled'}
                    aria-label={`${t(r.status === 'enabled' ? 'autoflow.disable' : 'autoflow.enable')}: ${r.name}`}
                    onChange={async (on) => {
                      // Switching on a rule that acts on SIMs first says on how many, and asks.
                      if (
                        on &&
                        !(await confirmEnable(modal, t, i18n.language, r).catch(
                          (e: { message?: string }) => (void message.error(e.message ?? t('autoflow.enableConfirm.title', { name: r.name })), false),
                        ))
                      )
                        return;
                      await autoflowApi.setStatus(r.id, on ? 'enable' : 'disable');
                      void message.success(t(on ? 'autoflow.enabled' : 'autoflow.disabled', { name: r.name }));
                      void load();
                    }}
                  />
                ) : (
                  <Tag color={r.status === 'enabled' ? 'green' : 'default'}>{t(`autoflow.status.${r.status}`)}</Tag>
                ),
            },
            // The trigger in words keeps 10em: squeezed by the other columns it ran to five lines in Spanish at 1280 px.
            {
              title: t('autoflow.fields.trigger'),
              key: 'trigger',
              width: 200,
              render: (_: unknown, r) => <div style={{ minWidth: '10em' }}>{triggerWords(t, i18n.language, r.trigger)}</div>,
            },
            { title: t('autoflow.fields.scope'), key: 'scope', width: 170, render: (_: unknown, r) => scopeWords(t, i18n.language, r.scope, pools) },
            {
              title: t('autoflow.fields.actions'),
              key: 'actions',
              width: 180,
              render: (_: unknown, r) => (
                <Space size={[0, 4]} wrap>
                  {r.actions.map((a, i) => (
                    <Tag key={i} style={{ whiteSpace: 'normal', maxWidth: '100%' }}>
                      {actionWords(t, a)}
                    </Tag>
                  ))}
                </Space>
              ),
            },
            { title: t('autoflow.fields.lastRunAt'), dataIndex: 'lastRunAt', width: 100, render: (v: string | null) => <DateTime value={v} /> },
            { title: t('autoflow.fields.runCount'), dataIndex: 'runCount', width: 70, align: 'right', render: (v: number) => formatNumber(v, i18n.language) },
            // The creator's address on one line, cut with an ellipsis (its title says it whole) when the column is
            // narrow: wrapped, it broke "superadmin" mid-word in a narrow column. Shown on wide screens (1600 px and
            // more) only: at 1280 px in Spanish the other columns had no room left for the rule's trigger in words.
            {
              title: t('autoflow.fields.creator'),
              key: 'creator',
              width: 120,
              responsive: ['xxl'],
              render: (_: unknown, r) => (r.creatorEmail ? <Cut text={r.creatorEmail} min={80} /> : '—'),
            },
            {
              title: t('autoflow.operations'),
              key: 'ops',
              width: 100,
              fixed: 'right',
              render: (_: unknown, r) => (
                <Space size={0}>
                  <Tooltip title={t('autoflow.history')}>
                    <Button
                      type="text"
                      size="small"
                      icon={<HistoryOutlined />}
                      aria-label={`${t('autoflow.history')}: ${r.name}`}
                      onClick={() => navigate(`/${lang}/trigger?id=${encodeURIComponent(r.id)}`)}
                    />
                  </Tooltip>
                  {mayUpdate && (
                    <Tooltip title={t('autoflow.edit')}>
                      <Button
                        type="text"
                        size="small"
                        icon={<EditOutlined />}
                        aria-label={`${t('autoflow.edit')}: ${r.name}`}
                        onClick={() => navigate(builder(`?id=${encodeURIComponent(r.id)}`))}
                      />
                    </Tooltip>
                  )}
                  {mayDelete && (
                    <ConfirmDelete words="autoflow" name={r.name} remove={() => autoflowApi.remove(r.id)} onDone={() => void load()}>
                      <Button type="text" size="small" danger icon={<DeleteOutlined />} aria-label={`${t('autoflow.delete')}: ${r.name}`} />
                    </ConfirmDelete>
                  )}
                </Space>
              ),
            },
          ]}
        />
      </Card>
    </>
  );
}

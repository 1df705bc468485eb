/**
 * Reports (sim/reports): the organisation's monthly reports and the preference columns they carry, each switched on
 * or off by those the rules allow (at least one stays on, as the server also insists). A ready report downloads; one
 * being made says so; a failed one can be made again by those who may create reports.
 */
import { DownloadOutlined, ReloadOutlined, SyncOutlined } from '@ant-design/icons';
import { App, Button, Card, List, Skeleton, Space, Switch, Tag, Tooltip, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RESOURCES } from '../../../common/resource-registry';
import { api, download, saveFile } from '../../providers/http';
import { subscribeLive } from '../../providers/live';
import { store } from '../../providers/session-store';
import { currentAbility } from '../../shell/ability';
import { ResourceListPage } from '../../resources/resource-list-page';

interface Column {
  columnKey: string;
  enabled: boolean;
  position: number;
}

interface Report {
  id: string;
  report: string;
  period: string;
  status: 'pending' | 'ready' | 'failed';
}

export function ReportsPage() {
  const { t } = useTranslation();
  const [version, setVersion] = useState(0);
  // A report's task ending (here or on another instance) changes its row: the list is read again.
  useEffect(
    () =>
      subscribeLive('task', (data) => {
        if ((data as { status?: string } | null)?.status !== 'processing') setVersion((v) => v + 1);
      }),
    [],
  );
  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }}>
      <ResourceListPage
        resource={RESOURCES.reports}
        title={t('menu.reports')}
        version={version}
        rowActions={(row) => <ReportActions report={row as unknown as Report} onChange={() => setVersion((v) => v + 1)} />}
      />
      <PreferenceColumns />
    </Space>
  );
}

/** A report row's action: download when ready, "being made" while pending, make again when it failed. */
function ReportActions({ report, onChange }: { report: Report; onChange: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const org = encodeURIComponent(store.get('partnerCode') ?? '');
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch {
      // The HTTP helper has shown the server's reason (busy, no longer available).
    } finally {
      setBusy(false);
    }
  };
  if (report.status === 'pending') {
    return (
      <Tooltip title={t('reports.madeSoon')}>
        <Tag icon={<SyncOutlined spin />} color="processing">
          {t('reports.making')}
        </Tag>
      </Tooltip>
    );
  }
  // Made again (after it failed, or after the preference columns changed) by those who may create reports.
  const again = () =>
    run(async () => {
      await api('POST', `/api/main/report/${org}/generate`, { report: report.report, period: report.period });
      void message.info(t('reports.madeSoon'));
      onChange();
    });
  const get = () =>
    run(async () =>
      saveFile(await download('GET', `/api/main/report/${org}/${encodeURIComponent(report.id)}/download`), `${report.report}-${report.period}.csv`),
    );
  return (
    <Space size="small">
      {report.status === 'ready' && (
        <Button size="small" icon={<DownloadOutlined />} loading={busy} onClick={() => void get()}>
          {t('reports.download')}
        </Button>
      )}
      {currentAbility().can('create', 'sim-report-cube') && (
        <Button size="small" icon={<ReloadOutlined />} disabled={busy} onClick={() => void again()}>
          {t('reports.makeAgain')}
        </Button>
      )}
    </Space>
  );
}

function PreferenceColumns() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [columns, setColumns] = useState<Column[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const mayChange = currentAbility().can('update', 'sim-report-cube');
  useEffect(() => {
    void api<{ items: Column[] }>('POST', '/api/main/report/config/list').then(
      (r) => setColumns(r.items),
      () => setColumns([]),
    );
  }, []);
  const toggle = async (column: Column, enabled: boolean) => {
    setBusy(column.columnKey);
    try {
      const r = await api<{ items: Column[] }>('POST', '/api/main/report/config/cube', { columns: [{ columnKey: column.columnKey, enabled }] });
      setColumns(r.items);
      void message.success(t('reports.saved'));
    } catch {
      // The HTTP helper has shown the server's reason; the switch keeps the stored state.
    } finally {
      setBusy(null);
    }
  };
  const enabledCount = columns?.filter((c) => c.enabled).length ?? 0;
  return (
    <Card title={t('reports.preferences')} extra={<Typography.Text type="secondary">{t('reports.preferencesHelp')}</Typography.Text>}>
      {!columns ? (
        <Skeleton active />
      ) : (
        <List
          grid={{ gutter: 16, xs: 1, sm: 2, lg: 3, xxl: 4 }}
          dataSource={columns}
          renderItem={(c) => {
            const last = c.enabled && enabledCount === 1;
            const label = t(`reportColumns.enum.columnKey.${c.columnKey}`, { defaultValue: c.columnKey });
            return (
              <List.Item>
                <Tooltip title={last ? t('reports.lastOne') : undefined}>
                  <Space>
                    <Switch
                      aria-label={label}
                      checked={c.enabled}
                      loading={busy === c.columnKey}
                      disabled={!mayChange || last || busy !== null}
                      onChange={(on) => void toggle(c, on)}
                    />
                    <span>{label}</span>
                  </Space>
                </Tooltip>
              </List.Item>
            );
          }}
        />
      )}
    </Card>
  );
}

/**
 * Reports (sim/reports): the organisation's monthly reports and the preference columns they carry, each switched on
 * or off by those the rules allow (at least one stays on, as the server also insists).
 */
import { App, Card, List, Skeleton, Space, Switch, Tooltip, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RESOURCES } from '../../common/resource-registry';
import { api } from '../providers/http';
import { currentAbility } from '../shell/ability';
import { ResourceListPage } from './resource-list-page';

interface Column {
  columnKey: string;
  enabled: boolean;
  position: number;
}

export function ReportsPage() {
  const { t } = useTranslation();
  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }}>
      <ResourceListPage resource={RESOURCES.reports} title={t('menu.reports')} />
      <PreferenceColumns />
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
    void api<{ items: Column[] }>('POST', '/api/main/report/config/list').then((r) => setColumns(r.items), () => setColumns([]));
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
                    <Switch aria-label={label} checked={c.enabled} loading={busy === c.columnKey} disabled={!mayChange || last || busy !== null} onChange={(on) => void toggle(c, on)} />
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

/** What every SIM tab shows before its answer (a skeleton) and instead of it (the error, with a retry). */
import { ReloadOutlined } from '@ant-design/icons';
import { Alert, Button, Empty, Skeleton, Table, type TableColumnsType } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { usePagedSimData, type SimData } from './use-sim-data';
import { FIT_TABLE } from '../../components/list-parts';

export function TabFrame<T>({ state, children }: { state: SimData<T>; children: (data: T) => ReactNode }) {
  const { t } = useTranslation();
  if (state.error)
    return (
      <Alert
        type="error"
        showIcon
        message={t('simDetail.loadFailed')}
        description={state.error}
        action={
          <Button icon={<ReloadOutlined />} onClick={state.reload}>
            {t('simDetail.refresh')}
          </Button>
        }
      />
    );
  if (!state.data) return <Skeleton active paragraph={{ rows: 6 }} />;
  return <>{children(state.data)}</>;
}

/** A refresh button for a tab's header. */
export function RefreshButton({ onClick, loading }: { onClick: () => void; loading?: boolean }) {
  const { t } = useTranslation();
  return (
    <Button icon={<ReloadOutlined />} onClick={onClick} loading={loading}>
      {t('simDetail.refresh')}
    </Button>
  );
}

/** A tab's records of the SIM as a table paged on the server, with the frame's loading and error states. */
export function PagedTab<T extends { id: string | number }>({ url, empty, columns }: { url: string; empty: string; columns: TableColumnsType<T> }) {
  const state = usePagedSimData<T>(url);
  return (
    <TabFrame state={state}>
      {(page) => (
        <Table<T>
          rowKey="id"
          size="small"
          dataSource={page.items}
          loading={state.loading}
          pagination={state.pagination}
          {...FIT_TABLE}
          locale={{ emptyText: <Empty description={empty} /> }}
          columns={columns}
        />
      )}
    </TabFrame>
  );
}

/** What every SIM tab shows before its answer (a skeleton) and instead of it (the error, with a retry). */
import { ReloadOutlined } from '@ant-design/icons';
import { Alert, Button, Skeleton } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { SimData } from './use-sim-data';

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

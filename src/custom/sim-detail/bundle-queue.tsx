/**
 * Above a SIM's bundle orders: its bundles in queue order (GET /sim/getAllPackageService/{iccid}): those in
 * use (the one whose cycle it counts marked), then the pending ones in the order they take over, each with when it is
 * expected to start. An admin may cancel a pending or in-use bundle (POST /sim/bundle/cancel); the next takes over.
 */
import { App, Button, Card, Empty, List, Popconfirm, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useTimeFormat } from '../../components/date-time';
import { api } from '../../providers/http';
import { currentAbility } from '../../shell/ability';
import { BUNDLE_STATUS_COLORS, type BundleOrder } from './bundle-order';
import { usePolicyTexts } from './data-policy';
import { useSimData } from './use-sim-data';

type Queued = Pick<BundleOrder, 'id' | 'name' | 'status' | 'type' | 'serviceType' | 'resetCycle'> & {
  base?: boolean;
  position?: number;
  startsAt?: string | null;
};

export function BundleQueue({ iccid, changed }: { iccid: string; changed: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const ready = usePolicyTexts();
  const time = useTimeFormat();
  const state = useSimData<{ inUse: Queued[]; pending: Queued[] }>(`/api/main/sim/getAllPackageService/${encodeURIComponent(iccid)}`);
  const mayCancel = currentAbility().can('cancelBundle', 'sim');
  if (!ready || !state.data) return null;
  const rows = [...state.data.inUse, ...state.data.pending];
  const cancel = async (b: Queued) => {
    try {
      await api('POST', '/api/main/sim/bundle/cancel', { iccid, bundleId: b.id });
      void message.success(t('simService.queue.cancelled', { name: b.name }));
      state.reload();
      changed();
    } catch {
      // The HTTP helper shows the server's reason (already ended).
    }
  };
  return (
    <Card size="small" title={t('simService.queue.title')} style={{ marginBottom: 16 }} data-testid="bundle-queue">
      <List<Queued>
        size="small"
        dataSource={rows}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('simService.queue.empty')} /> }}
        renderItem={(b) => (
          <List.Item
            actions={
              mayCancel
                ? [
                    <Popconfirm
                      key="cancel"
                      title={t('simService.queue.cancelTitle', { name: b.name })}
                      description={t(b.status === 'IN_USE' ? 'simService.queue.cancelInUse' : 'simService.queue.cancelPending')}
                      okButtonProps={{ danger: true }}
                      onConfirm={() => cancel(b)}
                    >
                      <Button size="small" danger>
                        {t('simService.queue.cancel')}
                      </Button>
                    </Popconfirm>,
                  ]
                : []
            }
          >
            <Space wrap>
              {b.position ? <Typography.Text type="secondary">{t('simService.queue.position', { n: b.position })}</Typography.Text> : null}
              <Typography.Text strong>{b.name}</Typography.Text>
              <Tag color={BUNDLE_STATUS_COLORS[b.status]}>{t(`bundleOrders.enum.status.${b.status}`)}</Tag>
              <Typography.Text type="secondary">{t(`bundleOrders.enum.type.${b.type}`)}</Typography.Text>
              {b.base && <Tag color="blue">{t('simService.queue.base')}</Tag>}
              {b.status === 'PENDING' && (
                <Typography.Text type="secondary">
                  {b.startsAt ? t('simService.queue.startsAt', { date: time(b.startsAt) }) : t('simService.queue.outside')}
                </Typography.Text>
              )}
            </Space>
          </List.Item>
        )}
      />
    </Card>
  );
}

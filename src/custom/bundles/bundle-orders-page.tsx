import { AppstoreOutlined } from '@ant-design/icons';
import { Button, Skeleton } from 'antd';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { RESOURCES } from '../../../common/resource-registry';
import { currentAbility } from '../../shell/ability';
import { ResourceListPage } from '../../resources/resource-list-page';

const BundleSummary = lazy(() => import('./bundle-summary').then((m) => ({ default: m.BundleSummary })));

/**
 * Bundle order records (sim/service): the schema list of schemas/bundle-orders.json, or (&view=bundles) the same orders
 * by product with their use (bundle-summary.tsx).
 */
export function BundleOrdersPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const view = (v: 'bundles' | null) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (v) next.set('view', v);
        else next.delete('view');
        return next;
      },
      { replace: true },
    );
  if (params.get('view') === 'bundles')
    return (
      <Suspense fallback={<Skeleton active paragraph={{ rows: 8 }} />}>
        <BundleSummary onOrders={() => view(null)} />
      </Suspense>
    );
  return (
    <ResourceListPage
      resource={RESOURCES.bundleOrders}
      title={t('menu.service')}
      exportCall={currentAbility().can('export', 'sim') ? 'POST /api/main/sim/service/list/export' : undefined}
      extra={
        <Button icon={<AppstoreOutlined />} onClick={() => view('bundles')}>
          {t('bundleOrders.byBundle')}
        </Button>
      }
    />
  );
}

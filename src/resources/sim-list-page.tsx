import { BarChartOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { RESOURCES } from '../../common/resource-registry';
import { ResourceListPage } from './resource-list-page';

/** All SIMs (sim/simCard): the schema list of schemas/sims.json. */
export function SimListPage() {
  const { t } = useTranslation();
  return <ResourceListPage resource={RESOURCES.sims} title={t('menu.simCard')} />;
}

/** Bundle order records (sim/service): the schema list of schemas/bundle-orders.json. */
export function BundleOrdersPage() {
  const { t } = useTranslation();
  return <ResourceListPage resource={RESOURCES.bundleOrders} title={t('menu.service')} />;
}

/** Call and data records (cdrCard): the schema list of schemas/cdrs.json, inside a window of at most 31 days. */
export function CdrListPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { lang } = useParams();
  return (
    <ResourceListPage
      resource={RESOURCES.cdrs}
      title={t('menu.cdrCard')}
      // The chart and back keeps this page as it was (SPEC.md section 2: kept alive only for that trip).
      extra={
        <Button icon={<BarChartOutlined />} onClick={() => navigate(`/${lang}/chartView`)}>
          {t('cdrChart.open')}
        </Button>
      }
    />
  );
}

import { BarChartOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { RESOURCES } from '../../common/resource-registry';
import { currentAbility } from '../shell/ability';
import { ResourceListPage } from './resource-list-page';
import { SimActions } from './sim-actions';
import { SimUploadButtons } from './sim-upload-dialogs';

const mayExport = (subject: 'sim' | 'cdr') => currentAbility().can('export', subject);

/** All SIMs (sim/simCard): the schema list of schemas/sims.json. */
export function SimListPage() {
  const { t } = useTranslation();
  const { lang } = useParams();
  return (
    <ResourceListPage
      resource={RESOURCES.sims}
      title={t('menu.simCard')}
      exportCall={mayExport('sim') ? 'POST /api/main/sim/list/export/task' : undefined}
      selectionActions={(ticked, done) => <SimActions ticked={ticked} done={done} />}
      showPath={(row) => `/${lang}/sim/detail?iccid=${encodeURIComponent(String(row.iccid))}`}
      extra={<SimUploadButtons />}
    />
  );
}

/** Bundle order records (sim/service): the schema list of schemas/bundle-orders.json. */
export function BundleOrdersPage() {
  const { t } = useTranslation();
  return <ResourceListPage resource={RESOURCES.bundleOrders} title={t('menu.service')} exportCall={mayExport('sim') ? 'POST /api/main/sim/service/list/export' : undefined} />;
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
      exportCall={mayExport('cdr') ? 'POST /api/cdr/export/distributor/:org/cdrs' : undefined}
      // The chart and back keeps this page as it was (SPEC.md section 2: kept alive only for that trip).
      extra={
        <Button icon={<BarChartOutlined />} onClick={() => navigate(`/${lang}/chartView`)}>
          {t('cdrChart.open')}
        </Button>
      }
    />
  );
}

import { useTranslation } from 'react-i18next';
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
  return <ResourceListPage resource={RESOURCES.cdrs} title={t('menu.cdrCard')} />;
}

import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { RESOURCES } from '../../../common/resource-registry';
import { currentAbility } from '../../shell/ability';
import { ResourceListPage } from '../../resources/resource-list-page';
import { SimActions } from './sim-actions';
import { SimUploadButtons } from './sim-upload-buttons';

/** All SIMs (sim/simCard): the schema list of schemas/sims.json. */
export function SimListPage() {
  const { t } = useTranslation();
  const { lang } = useParams();
  return (
    <ResourceListPage
      resource={RESOURCES.sims}
      title={t('menu.simCard')}
      exportCall={currentAbility().can('export', 'sim') ? 'POST /api/main/sim/list/export/task' : undefined}
      selectionActions={(ticked, done) => <SimActions ticked={ticked} done={done} />}
      showPath={(row) => `/${lang}/sim/detail?iccid=${encodeURIComponent(String(row.iccid))}`}
      extra={<SimUploadButtons />}
    />
  );
}

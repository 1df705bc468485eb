/** My organisations (orgs) and New organisation (orgscreate): the list and form of schemas/orgs.json. */
import { PlusOutlined } from '@ant-design/icons';
import { Alert, Button, Skeleton } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { RESOURCES } from '../../common/resource-registry';
import { api } from '../providers/http';
import { store } from '../providers/session-store';
import { currentAbility } from '../shell/ability';
import { ResourceCreatePage } from './resource-form-page';
import { ResourceListPage } from './resource-list-page';

export function OrgsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { lang } = useParams();
  const canCreate = currentAbility().can('create', 'org');
  return (
    <ResourceListPage
      resource={RESOURCES.orgs}
      title={t('menu.orgs')}
      extra={canCreate && (
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(`/${lang}/orgscreate`)}>
          {t('shell.newOrg')}
        </Button>
      )}
    />
  );
}

interface Seats {
  smsQuota: number;
  orgsLeft: number;
  orgCap: number;
}

export function OrgCreatePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { lang } = useParams();
  const [seats, setSeats] = useState<Seats | null>(null);
  useEffect(() => {
    void api<Seats>('GET', `/api/main/org/user/config/${encodeURIComponent(store.get('partnerCode') ?? '')}`).then(setSeats, () => undefined);
  }, []);
  if (!seats) return <Skeleton active />;
  return (
    <ResourceCreatePage
      resource={RESOURCES.orgs}
      title={t('menu.orgscreate')}
      intro={
        <Alert
          type={seats.orgsLeft <= 0 ? 'warning' : 'info'}
          showIcon
          style={{ marginBottom: 16, maxWidth: 640 }}
          message={seats.orgsLeft <= 0 ? t('errors.maxOrganisations') : t('orgs.seatsLeft', { count: seats.orgsLeft, cap: seats.orgCap })}
        />
      }
      // SPEC.md section 5: a sub-organisation's SMS quota ranges from 1 to the current organisation's.
      limits={{ smsQuota: { maximum: seats.smsQuota, default: Math.min(100, seats.smsQuota) } }}
      onCreated={() => navigate(`/${lang}/orgs`)}
    />
  );
}

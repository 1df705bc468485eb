/** My organisations (orgs) and New organisation (orgscreate): the list and form of schemas/orgs.json. */
import { BankOutlined, DeleteOutlined, EditOutlined, PlusOutlined, StarFilled, StarOutlined } from '@ant-design/icons';
import { Alert, App, Button, Skeleton, Space, Tag, Tooltip } from 'antd';
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { defineAbilityFor, subjectOf } from '../../../common/ability';
import { useEnterpriseTexts } from './texts';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { RESOURCES } from '../../../common/resource-registry';
import { api } from '../../providers/http';
import { store } from '../../providers/session-store';
import { currentAbility } from '../../shell/ability';
import { refreshRights } from '../../shell/rights';
import { FieldsDialog } from '../../resources/fields-dialog';
import { ResourceCreatePage } from '../../resources/resource-form-page';
import { ResourceListPage } from '../../resources/resource-list-page';

const EnterpriseDrawer = lazy(() => import('./enterprise-drawer').then((m) => ({ default: m.EnterpriseDrawer })));
/** Whether a role in an organisation may see its enterprise details (the permission file's "enterprise"). */
const mayReadEnterprise = (role: string) => {
  try {
    return defineAbilityFor(role).can('read', 'enterprise');
  } catch {
    return false;
  }
};

export function OrgsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { lang } = useParams();
  const { message, modal } = App.useApp();
  const ability = currentAbility();
  const canCreate = ability.can('create', 'org');
  const [renaming, setRenaming] = useState<Org | null>(null);
  const [enterprise, setEnterprise] = useState<Org | null>(null);
  const closeEnterprise = useCallback(() => setEnterprise(null), []);
  useEnterpriseTexts();
  const [version, setVersion] = useState(0);
  const changed = () => {
    setVersion((v) => v + 1);
    // The switcher and the header show organisation names and the default from the stored list.
    void refreshRights().catch(() => undefined);
  };
  const makeDefault = (org: Org) =>
    void api('PUT', `/api/identity/permission/info/cube/${encodeURIComponent(store.get('userId') ?? '')}/current/${encodeURIComponent(org.code)}`).then(
      () => {
        void message.success(t('orgs.defaultSet', { name: org.name }));
        changed();
      },
      () => undefined,
    );
  const confirmDelete = (org: Org) =>
    modal.confirm({
      title: t('orgs.deleteTitle', { name: org.name }),
      content: t('orgs.deleteConfirm'),
      okButtonProps: { danger: true },
      okText: t('orgs.delete'),
      onOk: () =>
        api('DELETE', `/api/main/enterprises/delete/cube/${encodeURIComponent(org.code)}`).then(
          () => {
            void message.success(t('orgs.deleted', { name: org.name }));
            changed();
          },
          () => undefined,
        ),
    });
  return (
    <>
      <ResourceListPage
        resource={RESOURCES.orgs}
        title={t('menu.orgs')}
        version={version}
        // The default organisation is marked where it is shown, and any other is made the default there: the
        // actions column keeps to Rename and Delete, narrow enough for the whole table at 1280 px.
        cells={{
          default: (row) => {
            const org = row as Org;
            if (org.default)
              return (
                <Tag icon={<StarFilled />} color="gold">
                  {t('orgs.isDefault')}
                </Tag>
              );
            if (org.pending_invitation) return null;
            return (
              <Button type="link" size="small" style={{ paddingInline: 0 }} icon={<StarOutlined />} onClick={() => makeDefault(org)}>
                {t('orgs.makeDefault')}
              </Button>
            );
          },
        }}
        rowActions={(row) => {
          const org = row as Org;
          return (
            <Space size={4}>
              {!org.pending_invitation && mayReadEnterprise(org.role) && (
                // An icon with its name as a tooltip: with its words the actions pushed the list's columns off a 1280 screen.
                <Tooltip title={t('enterprise.open')}>
                  <Button type="link" size="small" icon={<BankOutlined />} aria-label={t('enterprise.open')} onClick={() => setEnterprise(org)} />
                </Tooltip>
              )}
              {/* The permission file's conditions (an organisation one administers); the server's 0131-0135 decide the rest. */}
              {!org.pending_invitation && ability.can('update', subjectOf('org', { id: org.id, level: org.level })) && (
                <Button type="link" size="small" icon={<EditOutlined />} onClick={() => setRenaming(org)}>
                  {t('orgs.rename')}
                </Button>
              )}
              {/* A sub-organisation one administers, other than the one in use; the server says if it still holds data. */}
              {ability.can('delete', subjectOf('org', { id: org.id, level: org.level })) && org.code !== store.get('partnerCode') && (
                <Button type="link" size="small" danger icon={<DeleteOutlined />} onClick={() => confirmDelete(org)}>
                  {t('orgs.delete')}
                </Button>
              )}
            </Space>
          );
        }}
        extra={
          canCreate && (
            <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(`/${lang}/orgscreate`)}>
              {t('shell.newOrg')}
            </Button>
          )
        }
      />
      {enterprise && (
        <Suspense fallback={null}>
          <EnterpriseDrawer org={enterprise} onClose={closeEnterprise} />
        </Suspense>
      )}
      {renaming && (
        // Rename: the name's own rules in the form; the server's codes 0131-0135 shown in the dialog.
        <FieldsDialog
          resource={RESOURCES.orgs}
          fields={['name']}
          call={`POST /api/main/orgs/${encodeURIComponent(renaming.code)}`}
          title={t('orgs.renameTitle', { name: renaming.name })}
          initial={{ name: renaming.name }}
          done={(v) => t('orgs.renamed', { name: v.name })}
          onClose={(saved) => {
            setRenaming(null);
            if (saved) changed();
          }}
        />
      )}
    </>
  );
}

type Org = Record<string, unknown> & { id: string; code: string; name: string; role: string; level: number; default: boolean; pending_invitation: boolean };

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

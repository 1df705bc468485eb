/**
 * Shared pools (sim/shared): the organisation's pools, and one pool's detail with its usage this cycle, settings,
 * activity (SIMs that joined and left) and events, all from schemas/pools.json and its two nested lists.
 */
import { EditOutlined } from '@ant-design/icons';
import { Button, Card, Progress, Skeleton, Tabs, Typography } from 'antd';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { RESOURCES } from '../../../common/resource-registry';
import type { ResourceSchema } from '../../../common/resources';
import { currentAbility } from '../../shell/ability';
import { formatKb } from '../../resources/cell';
import { FieldsDialog } from '../../resources/fields-dialog';
import { ResourceListPage } from '../../resources/resource-list-page';
import { ResourceShowPage } from '../../resources/resource-show-page';

// The dashboard (with ECharts) and the settings come with the pool's page only when shown.
const PoolDashboard = lazy(() => import('./dashboard').then((m) => ({ default: m.PoolDashboard })));
const PoolSettings = lazy(() => import('./settings').then((m) => ({ default: m.PoolSettings })));

export function PoolsPage() {
  const { t } = useTranslation();
  const { lang } = useParams();
  return (
    <ResourceListPage resource={RESOURCES.pools} title={t('menu.shared')} showPath={(row) => `/${lang}/sim/shared/${encodeURIComponent(String(row.id))}`} />
  );
}

/** A nested list's schema with its parent filled into the call (":id" is the pool). */
function nested(resource: ResourceSchema, id: string): ResourceSchema {
  const admin = resource['x-admin'];
  return { ...resource, 'x-admin': { ...admin, list: { ...admin.list, call: admin.list.call.replace(':id', encodeURIComponent(id)) } } };
}

type Pool = Record<string, unknown> & { id: string; name: string; usageKb: number; limitKb: number };

export function PoolDetailPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { lang, id = '' } = useParams();
  const [renaming, setRenaming] = useState<Pool | null>(null);
  const [version, setVersion] = useState(0);
  // The tab shown stays when the page draws again after a change.
  const [tab, setTab] = useState('dashboard');
  const mayRename = currentAbility().can('update', 'shared-pool-cube');
  return (
    <>
      <ResourceShowPage
        key={version}
        resource={RESOURCES.pools}
        id={id}
        title={t('pools.one')}
        onBack={() => navigate(`/${lang}/sim/shared`)}
        extra={(record) =>
          mayRename && (
            <Button icon={<EditOutlined />} onClick={() => setRenaming(record as Pool)}>
              {t('pools.rename')}
            </Button>
          )
        }
        before={(record) => {
          const pool = record as Pool;
          const percent = pool.limitKb > 0 ? Math.min(100, Math.round((pool.usageKb / pool.limitKb) * 100)) : 0;
          return (
            <Card size="small">
              <Typography.Title level={4} style={{ marginTop: 0 }}>
                {pool.name}
              </Typography.Title>
              <Progress percent={percent} status={pool.usageKb > pool.limitKb ? 'exception' : 'normal'} aria-label={t('pools.fields.usageKb')} />
              <Typography.Text type="secondary">
                {t('pools.usageOf', { used: formatKb(pool.usageKb, i18n.language), limit: formatKb(pool.limitKb, i18n.language) })}
              </Typography.Text>
            </Card>
          );
        }}
      >
        <Card size="small">
          <Tabs
            activeKey={tab}
            onChange={setTab}
            items={[
              {
                key: 'dashboard',
                label: t('pools.dashboard'),
                children: (
                  <Suspense fallback={<Skeleton active />}>
                    <PoolDashboard poolId={id} version={version} />
                  </Suspense>
                ),
              },
              {
                key: 'settings',
                label: t('pools.sections.settings'),
                children: (
                  <Suspense fallback={<Skeleton active />}>
                    <PoolSettings poolId={id} onSaved={() => setVersion((v) => v + 1)} />
                  </Suspense>
                ),
              },
              { key: 'activity', label: t('pools.activity'), children: <ResourceListPage resource={nested(RESOURCES.poolMembers, id)} title="" /> },
              { key: 'events', label: t('pools.events'), children: <ResourceListPage resource={nested(RESOURCES.poolEvents, id)} title="" /> },
            ]}
          />
        </Card>
      </ResourceShowPage>
      {renaming && (
        <FieldsDialog
          resource={RESOURCES.pools}
          fields={['name']}
          call={`PUT /api/pool/pool/${encodeURIComponent(renaming.id)}/name`}
          title={t('pools.renameTitle', { name: renaming.name })}
          initial={{ name: renaming.name }}
          done={(v) => t('pools.renamed', { name: v.name })}
          onClose={(saved) => {
            setRenaming(null);
            if (saved) setVersion((v) => v + 1);
          }}
        />
      )}
    </>
  );
}

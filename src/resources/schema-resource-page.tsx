/**
 * The pages of a resource that a schema alone adds (docs/schemas.md): /{lang}/r/<resource> lists it, /create,
 * /show/:id and /edit/:id follow its x-admin. Which pages and buttons show is the role's rules' decision (the rules
 * come from the server with the schema's own rights); a page the role may not use sends to the root.
 */
import { EditOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Result, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate, useParams } from 'react-router';
import { currentAbility } from '../shell/ability';
import { ResourceCreatePage, ResourceEditPage } from './resource-form-page';
import { ResourceListPage } from './resource-list-page';
import { ResourceShowPage } from './resource-show-page';
import { schemaPath, useSchemaCatalog } from './schema-catalog';

type Page = 'list' | 'create' | 'show' | 'edit';
const ACTION: Record<Page, 'read' | 'create' | 'update'> = { list: 'read', show: 'read', create: 'create', edit: 'update' };

export function SchemaResourcePage({ page }: { page: Page }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { lang, resource: name, id } = useParams();
  const { items, loaded } = useSchemaCatalog();
  if (!loaded) return <Spin />;
  const resource = items.find((r) => r['x-admin'].resource === name);
  // The server lists only what the role may read: a resource missing here is outside the rights (SPEC.md section 2).
  if (!resource) return <Navigate to="/" replace />;
  const admin = resource['x-admin'];
  const ability = currentAbility();
  const may = (action: 'read' | 'create' | 'update') => ability.can(action, admin.subject);
  const has = { list: true, show: Boolean(admin.show), create: Boolean(admin.create), edit: Boolean(admin.edit) };
  if (!has[page]) return <Result status="404" title={t('resources.notFound')} />;
  if (!may(ACTION[page])) return <Navigate to="/" replace />;
  const to = (p: Page, key?: unknown) => `/${lang}/${schemaPath(admin.resource, p, key === undefined ? undefined : String(key))}`;
  const title = t(`${admin.i18n}.title`);
  const one = t(`${admin.i18n}.one`);

  switch (page) {
    case 'list':
      return (
        <ResourceListPage
          resource={resource}
          title={title}
          showPath={admin.show ? (row) => to('show', row[admin.key]) : undefined}
          editPath={admin.edit && may('update') ? (row) => to('edit', row[admin.key]) : undefined}
          extra={
            admin.create && may('create') ? (
              <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(to('create'))}>
                {t('resources.new', { name: one })}
              </Button>
            ) : undefined
          }
        />
      );
    case 'create':
      return <ResourceCreatePage resource={resource} title={t('resources.new', { name: one })} onCreated={(r) => navigate(admin.show ? to('show', r[admin.key]) : to('list'))} />;
    case 'show':
      return (
        <ResourceShowPage
          resource={resource}
          id={id!}
          title={one}
          onBack={() => navigate(to('list'))}
          extra={(record) =>
            admin.edit && may('update') ? (
              <Button icon={<EditOutlined />} onClick={() => navigate(to('edit', record[admin.key]))}>
                {t('forms.edit')}
              </Button>
            ) : null
          }
        />
      );
    case 'edit':
      return <ResourceEditPage resource={resource} id={id!} title={t('resources.editOf', { name: one })} onSaved={(r) => navigate(admin.show ? to('show', r[admin.key]) : to('list'))} />;
  }
}

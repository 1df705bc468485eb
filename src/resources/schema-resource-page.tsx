/**
 * The pages of a resource that a schema alone adds (docs/schemas.md): /{lang}/r/<resource> lists it, /create,
 * /show/:id and /edit/:id follow its x-admin. Which pages and buttons show is the role's rules' decision (the rules
 * come from the server with the schema's own rights); a page the role may not use sends to the root.
 */
import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import { Alert, App, Button, Result, Spin, Typography } from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate, useParams } from 'react-router';
import type { ResourceSchema } from '../../common/resources';
import { CODES } from '../../common/errors';
import { api, toastOf, type HttpError } from '../providers/http';
import { currentAbility } from '../shell/ability';
import { ResourceCreatePage, ResourceEditPage } from './resource-form-page';
import { ResourceListPage } from './resource-list-page';
import { ResourceShowPage } from './resource-show-page';
import { schemaPath, useSchemaCatalog } from './schema-catalog';
import { inTitle } from './title-name';

type Page = 'list' | 'create' | 'show' | 'edit';

/** At most this many names are listed in a delete confirmation; the rest are counted. */
const NAMED = 10;

/**
 * Delete records after a confirmation that names them (the server's delete: one by its record call, several by the
 * collection with their keys, all or none). A refusal (a record still in use) is shown in the dialog, which stays.
 */
function useDelete(resource: ResourceSchema) {
  const { t, i18n } = useTranslation();
  const { modal, message } = App.useApp();
  const admin = resource['x-admin'];
  const url = (admin.show ?? admin.edit)!.call.split(' ')[1];
  const one = inTitle(t(`${admin.i18n}.one`), i18n.language);
  return (rows: Array<{ key: string; name: string }>, done: () => void) => {
    const confirm = { danger: true };
    const dialog = modal.confirm({
      title:
        rows.length === 1
          ? t('resources.deleteOne', { name: one, label: rows[0].name })
          : t('resources.deleteMany', { count: rows.length, name: inTitle(t(`${admin.i18n}.title`), i18n.language) }),
      content: (
        <>
          {rows.length > 1 && (
            <ul style={{ paddingInlineStart: 20, marginBlock: 8 }}>
              {rows.slice(0, NAMED).map((r) => (
                <li key={r.key}>{r.name}</li>
              ))}
              {rows.length > NAMED && <li>{t('resources.deleteMore', { count: rows.length - NAMED })}</li>}
            </ul>
          )}
          <Typography.Text type="secondary">{t('resources.deleteFinal')}</Typography.Text>
        </>
      ),
      okText: t('resources.delete'),
      okButtonProps: confirm,
      cancelText: t('shell.cancel'),
      // Taking close, onOk closes the dialog itself: only once the records are gone (docs/decisions.md, refused deletes).
      onOk: (close: () => void) => {
        dialog.update({ okButtonProps: { ...confirm, loading: true } });
        void (async () => {
          try {
            if (rows.length === 1) await api('DELETE', url.replace(':id', encodeURIComponent(rows[0].key)), undefined, { quiet: true });
            else await api('DELETE', url.replace(/\/:id$/, ''), { ids: rows.map((r) => r.key) }, { quiet: true });
          } catch (e) {
            // Refused (a record still in use) or failed: the reason stays in the dialog, beside what was asked, until
            // the person closes it. A refusal cannot pass by trying again, so its Delete goes; any other failure may.
            const err = e as HttpError;
            const refused = err.code === CODES.recordInUse;
            const reason = toastOf(err);
            dialog.update({
              title: t('resources.notDeleted', { count: rows.length }),
              content: <Alert type="error" showIcon role="alert" message={'key' in reason ? t(reason.key) : reason.text} style={{ marginBlock: 8 }} />,
              okButtonProps: refused ? { ...confirm, style: { display: 'none' } } : confirm,
              cancelText: t('resources.close'),
            });
            return;
          }
          close();
          void message.success(t('resources.deleted', { count: rows.length }));
          done();
        })();
      },
    });
  };
}
const ACTION: Record<Page, 'read' | 'create' | 'update'> = { list: 'read', show: 'read', create: 'create', edit: 'update' };

export function SchemaResourcePage({ page }: { page: Page }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { lang, resource: name, id } = useParams();
  const { items, loaded } = useSchemaCatalog();
  const [version, setVersion] = useState(0);
  // The names of the rows the list has drawn, by key: a bulk delete's confirmation names what it deletes.
  const names = useRef(new Map<string, string>());
  if (!loaded) return <Spin />;
  const resource = items.find((r) => r['x-admin'].resource === name);
  // The server lists only what the role may read: a resource missing here is outside the rights (SPEC.md section 2).
  if (!resource) return <Navigate to="/" replace />;
  const admin = resource['x-admin'];
  const ability = currentAbility();
  const may = (action: 'read' | 'create' | 'update' | 'delete') => ability.can(action, admin.subject);
  const deletable = may('delete') && Boolean(admin.show ?? admin.edit);
  // How a row is named in a confirmation: its first list column, or its key.
  const nameOf = (row: Record<string, unknown>) => String(row[admin.list.columns[0]] ?? row[admin.key]);
  const has = { list: true, show: Boolean(admin.show), create: Boolean(admin.create), edit: Boolean(admin.edit) };
  if (!has[page]) return <Result status="404" title={t('resources.notFound')} />;
  if (!may(ACTION[page])) return <Navigate to="/" replace />;
  const to = (p: Page, key?: unknown) => `/${lang}/${schemaPath(admin.resource, p, key === undefined ? undefined : String(key))}`;
  const title = t(`${admin.i18n}.title`);
  const one = t(`${admin.i18n}.one`);
  const named = inTitle(one, i18n.language);

  switch (page) {
    case 'list':
      return (
        <ResourceListPage
          resource={resource}
          title={title}
          showPath={admin.show ? (row) => to('show', row[admin.key]) : undefined}
          editPath={admin.edit && may('update') ? (row) => to('edit', row[admin.key]) : undefined}
          version={version}
          rowActions={
            deletable
              ? (row) => {
                  names.current.set(String(row[admin.key]), nameOf(row));
                  return (
                    <DeleteButton resource={resource} row={{ key: String(row[admin.key]), name: nameOf(row) }} onDone={() => setVersion((v) => v + 1)} link />
                  );
                }
              : undefined
          }
          selectionActions={
            deletable
              ? (ticked, done) => (
                  <BulkDeleteButton resource={resource} rows={ticked.map((key) => ({ key, name: names.current.get(key) ?? key }))} onDone={done} />
                )
              : undefined
          }
          extra={
            admin.create && may('create') ? (
              <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(to('create'))}>
                {t('resources.new', { name: named })}
              </Button>
            ) : undefined
          }
        />
      );
    case 'create':
      return (
        <ResourceCreatePage
          resource={resource}
          title={t('resources.new', { name: named })}
          onCreated={(r) => navigate(admin.show ? to('show', r[admin.key]) : to('list'))}
        />
      );
    case 'show':
      return (
        <ResourceShowPage
          resource={resource}
          id={id!}
          title={nameOf}
          context={{ title, path: to('list') }}
          onBack={() => navigate(to('list'))}
          extra={(record) => (
            <>
              {admin.edit && may('update') && (
                <Button icon={<EditOutlined />} onClick={() => navigate(to('edit', record[admin.key]))}>
                  {t('forms.edit')}
                </Button>
              )}
              {deletable && (
                <DeleteButton resource={resource} row={{ key: String(record[admin.key]), name: nameOf(record) }} onDone={() => navigate(to('list'))} />
              )}
            </>
          )}
        />
      );
    case 'edit':
      return (
        <ResourceEditPage
          resource={resource}
          id={id!}
          title={t('resources.editOf', { name: named })}
          onSaved={(r) => navigate(admin.show ? to('show', r[admin.key]) : to('list'))}
        />
      );
  }
}

/** A record's Delete: a danger button on its page, a link in its list row; asks first, naming it. */
function DeleteButton({ resource, row, onDone, link }: { resource: ResourceSchema; row: { key: string; name: string }; onDone: () => void; link?: boolean }) {
  const { t } = useTranslation();
  const remove = useDelete(resource);
  return (
    <Button
      danger
      type={link ? 'link' : 'default'}
      size={link ? 'small' : 'middle'}
      icon={<DeleteOutlined />}
      aria-label={`${t('resources.delete')} ${row.name}`}
      onClick={() => remove([row], onDone)}
      style={link ? { padding: 0 } : undefined}
    >
      {t('resources.delete')}
    </Button>
  );
}

/** Delete the ticked rows of the list together, after a confirmation that names them. */
function BulkDeleteButton({ resource, rows, onDone }: { resource: ResourceSchema; rows: Array<{ key: string; name: string }>; onDone: () => void }) {
  const { t } = useTranslation();
  const remove = useDelete(resource);
  return (
    <Button danger icon={<DeleteOutlined />} disabled={!rows.length} onClick={() => remove(rows, onDone)}>
      {rows.length ? t('resources.deleteTicked', { count: rows.length }) : t('resources.deleteNone')}
    </Button>
  );
}

/**
 * The create and edit pages of any resource with x-admin.create or x-admin.edit: an RJSF form of the schema's own
 * rules (the same the server's ajv enforces), sent to the schema's call; a field the server refuses is named under it.
 */
import { useCreate, useOne, useUpdate } from '@refinedev/core';
import { App, Card, Result, Skeleton, Typography } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formBodySchema, type ResourceSchema } from '../../common/resources';
import type { HttpError } from '../providers/http';
import { editValues } from './edit-values';
import { SchemaForm } from './schema-form';

interface FormProps {
  resource: ResourceSchema;
  kind: 'create' | 'edit';
  title: string;
  initial: Record<string, unknown>;
  /** Limits known only at run time (an SMS quota up to the current organisation's), merged into the fields' schemas. */
  limits?: Record<string, Record<string, unknown>>;
  /** Shown between the title and the form (seats left, a reason the form cannot be sent). */
  intro?: ReactNode;
  busy: boolean;
  send: (values: Record<string, unknown>, onError: (e: HttpError) => void) => void;
}

function ResourceForm({ resource, kind, title, initial, limits = {}, intro, busy, send }: FormProps) {
  const { t } = useTranslation();
  const admin = resource['x-admin'];
  const base = formBodySchema(resource, kind);
  const schema = { ...base, properties: Object.fromEntries(Object.entries(base.properties).map(([f, p]) => [f, { ...p, ...limits[f] }])) };
  const [data, setData] = useState<Record<string, unknown>>(initial);
  const [serverError, setServerError] = useState<{ field: string; message: string } | null>(null);
  return (
    <>
      <Typography.Title level={3}>{title}</Typography.Title>
      {intro}
      <Card style={{ maxWidth: 640 }}>
        <SchemaForm
          schema={schema}
          prefix={admin.i18n}
          uiSchema={admin[kind]!.uiSchema}
          formData={data}
          onChange={(d) => {
            setData(d);
            setServerError(null);
          }}
          serverError={serverError}
          submitText={t(kind === 'create' ? 'forms.create' : 'forms.save')}
          busy={busy}
          onSubmit={(values) =>
            send(values, (err) => {
              if (err.field && err.field in schema.properties) setServerError({ field: err.field, message: err.message });
            })
          }
        />
      </Card>
    </>
  );
}

interface CreateProps {
  resource: ResourceSchema;
  title: string;
  limits?: Record<string, Record<string, unknown>>;
  intro?: ReactNode;
  onCreated: (record: Record<string, unknown>) => void;
}

export function ResourceCreatePage({ resource, title, limits, intro, onCreated }: CreateProps) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const admin = resource['x-admin'];
  const { mutate, mutation } = useCreate();
  return (
    <ResourceForm
      resource={resource}
      kind="create"
      title={title}
      initial={{}}
      limits={limits}
      intro={intro}
      busy={mutation.isPending}
      send={(values, onError) =>
        mutate(
          { resource: admin.resource, values, meta: { create: admin.create!.call }, successNotification: false, errorNotification: false },
          {
            onSuccess: (r) => {
              void message.success(t('forms.created'));
              onCreated(r.data as Record<string, unknown>);
            },
            onError: (e) => onError(e as unknown as HttpError),
          },
        )
      }
    />
  );
}

interface EditProps {
  resource: ResourceSchema;
  id: string;
  title: string;
  onSaved: (record: Record<string, unknown>) => void;
}

/** The record is loaded by the show call, then its edit fields fill the form. */
export function ResourceEditPage({ resource, id, title, onSaved }: EditProps) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const admin = resource['x-admin'];
  const { result, query } = useOne<Record<string, unknown>>({
    resource: admin.resource,
    id,
    meta: { one: admin.show?.call },
    errorNotification: false,
    queryOptions: { enabled: Boolean(admin.show) },
  });
  const { mutate, mutation } = useUpdate();
  if (query.isLoading) return <Skeleton active paragraph={{ rows: 6 }} />;
  if (admin.show && !result) return <Result status="404" title={t('resources.notFound')} />;
  const initial = Object.fromEntries(admin.edit!.fields.filter((f) => result?.[f] !== null && result?.[f] !== undefined).map((f) => [f, result![f]]));
  return (
    <ResourceForm
      resource={resource}
      kind="edit"
      title={title}
      initial={initial}
      busy={mutation.isPending}
      send={(values, onError) =>
        mutate(
          {
            resource: admin.resource,
            id,
            values: editValues(formBodySchema(resource, 'edit').properties, initial, values),
            meta: { update: admin.edit!.call },
            successNotification: false,
            errorNotification: false,
          },
          {
            onSuccess: (r) => {
              void message.success(t('forms.saved'));
              onSaved(r.data as Record<string, unknown>);
            },
            onError: (e) => onError(e as unknown as HttpError),
          },
        )
      }
    />
  );
}

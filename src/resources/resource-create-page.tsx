/** The create page of any resource with x-admin.create: an RJSF form of the schema's own rules, sent to its call. */
import { useCreate } from '@refinedev/core';
import { App, Card, Typography } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { createBodySchema, type ResourceSchema } from '../../common/resources';
import type { HttpError } from '../providers/http';
import { SchemaForm } from './schema-form';

interface Props {
  resource: ResourceSchema;
  title: string;
  /** Limits known only at run time (an SMS quota up to the current organisation's), merged into the fields' schemas. */
  limits?: Record<string, Record<string, unknown>>;
  onCreated: (record: Record<string, unknown>) => void;
  /** Shown between the title and the form (seats left, a reason the form cannot be sent). */
  intro?: ReactNode;
}

export function ResourceCreatePage({ resource, title, limits = {}, onCreated, intro }: Props) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const admin = resource['x-admin'];
  const form = admin.create!;
  const base = createBodySchema(resource);
  const schema = { ...base, properties: Object.fromEntries(Object.entries(base.properties).map(([f, p]) => [f, { ...p, ...limits[f] }])) };
  const [data, setData] = useState<Record<string, unknown>>({});
  const [serverError, setServerError] = useState<{ field: string; message: string } | null>(null);
  const { mutate, mutation } = useCreate();

  return (
    <>
      <Typography.Title level={3}>{title}</Typography.Title>
      {intro}
      <Card style={{ maxWidth: 640 }}>
        <SchemaForm
          schema={schema}
          prefix={admin.i18n}
          uiSchema={form.uiSchema}
          formData={data}
          onChange={(d) => {
            setData(d);
            setServerError(null);
          }}
          serverError={serverError}
          submitText={t('forms.create')}
          busy={mutation.isPending}
          onSubmit={(values) =>
            mutate(
              { resource: admin.resource, values, meta: { create: form.call }, successNotification: false, errorNotification: false },
              {
                onSuccess: (r) => {
                  void message.success(t('forms.created'));
                  onCreated(r.data as Record<string, unknown>);
                },
                onError: (e) => {
                  const err = e as unknown as HttpError;
                  if (err.field && err.field in schema.properties) setServerError({ field: err.field, message: err.message });
                },
              },
            )
          }
        />
      </Card>
    </>
  );
}

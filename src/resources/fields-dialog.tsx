/**
 * A dialog that changes a few fields of a record (a rename): the fields' own rules in the form, the server's refusal
 * shown in the dialog (under its field when it names one), nothing sent twice.
 */
import { Alert, App, Modal } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fieldsSchema, type ResourceSchema } from '../../common/resources';
import { api, type HttpError } from '../providers/http';
import { SchemaForm } from './schema-form';

interface Props {
  resource: ResourceSchema;
  fields: string[];
  /** "METHOD /api/…" already naming the record. */
  call: string;
  title: string;
  initial: Record<string, unknown>;
  /** The toast after saving, from the values sent. */
  done: (values: Record<string, unknown>) => string;
  onClose: (saved: boolean) => void;
  /** Sent with the fields (the record's key where the call names no record: { iccid }). */
  extra?: Record<string, unknown>;
}

export function FieldsDialog({ resource, fields, call, title, initial, done, onClose, extra }: Props) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [data, setData] = useState<Record<string, unknown>>(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const [fieldError, setFieldError] = useState<{ field: string; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const schema = fieldsSchema(resource, fields);
  const send = async (values: Record<string, unknown>) => {
    const [method, url] = call.split(' ');
    setBusy(true);
    try {
      await api(method, url, { ...extra, ...values }, { quiet: true });
      void message.success(done(values));
      onClose(true);
    } catch (e) {
      const err = e as HttpError;
      if (err.field && fields.includes(err.field)) setFieldError({ field: err.field, message: err.message });
      else setProblem(err.message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal open title={title} onCancel={() => onClose(false)} footer={null} destroyOnHidden>
      {problem && <Alert type="error" showIcon message={problem} style={{ marginBottom: 16 }} />}
      <SchemaForm
        schema={schema}
        prefix={resource['x-admin'].i18n}
        formData={data}
        serverError={fieldError}
        onChange={(d) => {
          setData(d);
          setProblem(null);
          setFieldError(null);
        }}
        onSubmit={(values) => void send(values)}
        submitText={t('forms.save')}
        busy={busy}
      />
    </Modal>
  );
}

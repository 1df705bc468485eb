/**
 * One shape for a dialog's or a button's call (useSubmit), and the dialog of a form that uses it (FormDialog): the
 * form's fields checked first (a field in error is shown by the form and nothing is sent), busy while the call runs,
 * and on success the toast, the form emptied when asked and `done` given the answer. A refusal is shown by the HTTP
 * helper, which names the field and the rule; the dialog stays open with what was typed.
 */
import { App, Form, Modal, Typography, type FormInstance, type ModalProps } from 'antd';
import { useState, type ReactNode } from 'react';

interface SubmitOptions<V, R> {
  /** The form checked before sending; its values are what `send` gets. */
  form?: FormInstance<V>;
  /** Empty the form after a success (a dialog opened again starts afresh). */
  reset?: boolean;
  /** The toast of a success (null: none, the caller tells the person itself). */
  success?: (result: R) => string | null;
}

export function useSubmit<V, R>(send: (values: V) => Promise<R>, done: (result: R) => void, opts: SubmitOptions<V, R> = {}) {
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    let values = undefined as V;
    // A field in error is shown under it by the form; nothing is sent (and no rejection is left unhandled).
    if (opts.form) {
      try {
        values = await opts.form.validateFields();
      } catch {
        return;
      }
    }
    setBusy(true);
    try {
      const result = await send(values);
      const text = opts.success?.(result);
      if (text) void message.success(text);
      if (opts.reset) opts.form?.resetFields();
      done(result);
    } catch {
      // Shown by the HTTP helper.
    } finally {
      setBusy(false);
    }
  };
  /** What an antd Modal of the form takes: its OK button submits and spins meanwhile. */
  const dialog = { confirmLoading: busy, onOk: () => void submit(), destroyOnHidden: true };
  return { busy, submit, dialog };
}

/** A Modal holding a vertical form, with a line of help above it; `dialog` is useSubmit's. `disabled` greys every field (while the values to edit are still on their way). */
export function FormDialog<V>({
  help,
  form,
  name,
  initialValues,
  disabled,
  children,
  ...modal
}: Omit<ModalProps, 'children'> & {
  help?: ReactNode;
  form: FormInstance<V>;
  name?: string;
  initialValues?: Partial<V>;
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <Modal {...modal}>
      {help && <Typography.Paragraph type="secondary">{help}</Typography.Paragraph>}
      <Form form={form} layout="vertical" name={name} initialValues={initialValues} disabled={disabled}>
        {children}
      </Form>
    </Modal>
  );
}

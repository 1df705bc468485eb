import { App, Form, Input, Modal } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { NewPasswordFields } from '../../components/new-password-fields';
import { api, type HttpError } from '../../providers/http';
import { CaptchaImage, useChallenge } from './captcha';

interface Props {
  open: boolean;
  onClose: () => void;
}

/** Forgot password: e-mail and picture code send a mailed code; the code and a new password reset it. */
export function ForgotPasswordDialog({ open, onClose }: Props) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const [step, setStep] = useState<'send' | 'reset'>('send');
  const [busy, setBusy] = useState(false);
  const { challenge, refresh } = useChallenge();

  const close = () => {
    form.resetFields();
    setStep('send');
    onClose();
  };

  const submit = async () => {
    const v = await form.validateFields();
    setBusy(true);
    try {
      if (step === 'send') {
        await api(
          'POST',
          '/api/identity/sso/signin/forget/cube/password/send',
          { username: v.username, verificationCode: v.verificationCode, challengeId: challenge?.challengeId },
          { quiet: true },
        );
        message.success(t('forgot.sent'));
        setStep('reset');
      } else {
        await api('POST', '/api/identity/sso/signin/forget/cube/password/reset', { username: v.username, code: v.code, password: v.password }, { quiet: true });
        message.success(t('forgot.done'));
        close();
      }
    } catch (err) {
      message.error((err as HttpError).message);
      refresh();
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t('forgot.title')}
      onCancel={close}
      onOk={submit}
      okText={step === 'send' ? t('forgot.send') : t('forgot.submit')}
      cancelText={t('forgot.cancel')}
      confirmLoading={busy}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" requiredMark={false}>
        <Form.Item
          name="username"
          label={t('login.email')}
          rules={[
            { required: true, message: t('login.emailRequired') },
            { type: 'email', message: t('login.emailInvalid') },
          ]}
        >
          <Input autoComplete="email" disabled={step === 'reset'} />
        </Form.Item>
        {step === 'send' ? (
          <Form.Item label={t('login.code')} required>
            <div style={{ display: 'flex', gap: 8 }}>
              <Form.Item name="verificationCode" noStyle rules={[{ required: true, message: t('login.codeRequired') }]}>
                <Input aria-label={t('login.code')} />
              </Form.Item>
              <CaptchaImage challenge={challenge} onRefresh={refresh} />
            </div>
          </Form.Item>
        ) : (
          <>
            <Form.Item name="code" label={t('forgot.mailCode')} rules={[{ required: true, message: t('forgot.mailCodeRequired') }]}>
              <Input autoComplete="one-time-code" />
            </Form.Item>
            <NewPasswordFields />
          </>
        )}
      </Form>
    </Modal>
  );
}

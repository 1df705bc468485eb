import { App, Button, Card, Form, Input, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { isValidPassword } from '../../../common/limits';
import { api, type HttpError } from '../../providers/http';
import { clearSession, store } from '../../providers/session-store';

interface Values {
  oldPassword: string;
  password: string;
  confirm: string;
}

/** Change password (SPEC.md sections 5 and 7): old password, the rule, the confirmation; then sign in again. */
export function ChangePasswordPage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);

  const submit = async (v: Values) => {
    setBusy(true);
    try {
      await api('POST', '/api/identity/crud/admin/cube/users/user/cube/password/reset', { oldPassword: v.oldPassword, password: v.password }, { quiet: true });
      void message.success(t('account.passwordChanged'));
      const lang = store.get('lang') ?? 'en-US';
      clearSession();
      navigate(`/${lang}/login`, { replace: true });
    } catch (err) {
      void message.error((err as HttpError).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Typography.Title level={3}>{t('menu.changePassword')}</Typography.Title>
      <Card style={{ maxWidth: 520 }}>
        <Form<Values> layout="vertical" requiredMark={false} onFinish={submit}>
          <Form.Item name="oldPassword" label={t('account.oldPassword')} rules={[{ required: true, message: t('account.oldPasswordRequired') }]}>
            <Input.Password autoComplete="current-password" />
          </Form.Item>
          <Form.Item name="password" label={t('forgot.newPassword')} rules={[{ validator: (_, v) => (isValidPassword(v ?? '') ? Promise.resolve() : Promise.reject(new Error(t('rules.password')))) }]}>
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          <Form.Item
            name="confirm"
            label={t('forgot.confirm')}
            dependencies={['password']}
            rules={[
              { required: true, message: t('forgot.confirmRequired') },
              ({ getFieldValue }) => ({ validator: (_, v) => (v === getFieldValue('password') ? Promise.resolve() : Promise.reject(new Error(t('rules.passwordMismatch')))) }),
            ]}
          >
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={busy}>
            {t('menu.changePassword')}
          </Button>
        </Form>
      </Card>
    </>
  );
}

import { App, Button, Card, Form, Input, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { NewPasswordFields } from '../../components/new-password-fields';
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
          <NewPasswordFields />
          <Button type="primary" htmlType="submit" loading={busy}>
            {t('menu.changePassword')}
          </Button>
        </Form>
      </Card>
    </>
  );
}

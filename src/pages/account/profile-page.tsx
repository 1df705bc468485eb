import { App, Button, Card, Descriptions, Form, Input, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '../../../common/limits';
import { ROLE_COLORS, type Role } from '../../../common/roles';
import { api } from '../../providers/http';
import { currentRole, store } from '../../providers/session-store';
import { announceSessionChange } from '../../providers/use-session-value';

/** Profile: who I am, where, with which role; my name can be changed (1-30 characters each). */
export function ProfilePage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const [name, setName] = useState(store.get('username') ?? '');
  const role = currentRole() as Role | null;
  const [first, ...rest] = name.split(' ');
  const nameRule = [
    { required: true, whitespace: true, message: t('account.nameRequired') },
    { max: LIMITS.accountName.max, message: t('account.nameMax', { max: LIMITS.accountName.max }) },
  ];

  const submit = async (v: { firstName: string; lastName: string }) => {
    setBusy(true);
    try {
      const r = await api<{ name: string }>('PUT', '/api/identity/permission/info/cube/permissions/name', {
        firstName: v.firstName.trim(),
        lastName: v.lastName.trim(),
      });
      store.set('username', r.name);
      store.set('accountName', r.name);
      setName(r.name);
      announceSessionChange();
      void message.success(t('account.saved'));
    } catch {
      // The HTTP helper has shown the server's message.
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Typography.Title level={3}>{t('menu.profile')}</Typography.Title>
      <Card style={{ maxWidth: 720 }}>
        <Descriptions column={1} bordered size="small" style={{ marginBottom: 24 }}>
          <Descriptions.Item label={t('login.email')}>{store.get('userEmail')}</Descriptions.Item>
          <Descriptions.Item label={t('shell.organisation')}>{store.get('enterpriseName')}</Descriptions.Item>
          <Descriptions.Item label={t('shell.role')}>{role && <Tag color={ROLE_COLORS[role]}>{t(`roles.${role}`)}</Tag>}</Descriptions.Item>
        </Descriptions>
        <Form layout="vertical" requiredMark={false} onFinish={submit} initialValues={{ firstName: first, lastName: rest.join(' ') }}>
          <Form.Item name="firstName" label={t('account.firstName')} rules={nameRule}>
            <Input autoComplete="given-name" />
          </Form.Item>
          <Form.Item name="lastName" label={t('account.lastName')} rules={nameRule}>
            <Input autoComplete="family-name" />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={busy}>
            {t('account.save')}
          </Button>
        </Form>
      </Card>
    </>
  );
}

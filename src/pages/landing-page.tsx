import { BankOutlined, LogoutOutlined } from '@ant-design/icons';
import { useLogout } from '@refinedev/core';
import { App, Button, Empty, Layout, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { ROLE_COLORS, type Role } from '../../common/roles';
import { LanguageSwitcher } from '../components/language-switcher';
import { currentRole, store } from '../providers/session-store';

/** The signed-in landing page until the full shell arrives: who you are, where, and sign-out. */
export function LandingPage() {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const { mutate: logout } = useLogout();
  const role = currentRole() as Role | null;
  const name = store.get('username') ?? '';

  const confirmSignOut = () =>
    modal.confirm({
      title: t('shell.signOutTitle'),
      content: t('shell.signOutText'),
      okText: t('shell.ok'),
      cancelText: t('shell.cancel'),
      onOk: () => logout(),
    });

  return (
    <Layout style={{ minHeight: '100vh' }}>
      <Layout.Header style={{ background: '#fff', display: 'flex', alignItems: 'center', justifyContent: 'space-between', borderBottom: '1px solid #f0f0f0', padding: '0 24px' }}>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('app.platformName')}
        </Typography.Title>
        <Space size="middle">
          <span title={t('shell.organisation')}>
            <BankOutlined /> <strong>{store.get('enterpriseName') || store.get('partnerCode')}</strong>
          </span>
          {role && <Tag color={ROLE_COLORS[role]}>{t(`roles.${role}`)}</Tag>}
          <span>{name}</span>
          <LanguageSwitcher />
          <Button icon={<LogoutOutlined />} onClick={confirmSignOut}>
            {t('shell.signOut')}
          </Button>
        </Space>
      </Layout.Header>
      <Layout.Content style={{ padding: 24 }}>
        <Typography.Title level={3}>{t('landing.title')}</Typography.Title>
        <Typography.Paragraph>{t('landing.welcome', { name })}</Typography.Paragraph>
        <div style={{ background: '#fff', padding: 48, borderRadius: 8 }}>
          <Empty description={t('landing.empty')} />
        </div>
      </Layout.Content>
    </Layout>
  );
}

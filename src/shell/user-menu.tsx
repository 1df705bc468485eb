import { InfoCircleOutlined, KeyOutlined, LogoutOutlined, TeamOutlined, UserOutlined } from '@ant-design/icons';
import { useLogout } from '@refinedev/core';
import { App, Avatar, Button, Dropdown, Space, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { APP_VERSION } from '../../common/limits';
import { ROLE_COLORS, type Role } from '../../common/roles';
import { useBrand } from '../providers/brand';
import { currentRole } from '../providers/session-store';
import { useSessionValue } from '../providers/use-session-value';

/** SPEC.md section 2: Profile, My Organisations, Change password, About, Sign out (with its confirm dialog). */
export function UserMenu() {
  const { t } = useTranslation();
  const { lang } = useParams();
  const navigate = useNavigate();
  const { modal } = App.useApp();
  const { mutate: logout } = useLogout();
  const brand = useBrand();
  const role = currentRole() as Role | null;
  const username = useSessionValue('username');
  // One theme hides the version (SPEC.md section 1): the brand variant "terra".
  const showAbout = brand.variant !== 'terra';

  const items = [
    { key: 'profile', icon: <UserOutlined />, label: t('shell.profile') },
    { key: 'orgs', icon: <TeamOutlined />, label: t('shell.myOrgs') },
    { key: 'password', icon: <KeyOutlined />, label: t('shell.changePassword') },
    ...(showAbout ? [{ key: 'about', icon: <InfoCircleOutlined />, label: t('shell.about') }] : []),
    { type: 'divider' as const },
    { key: 'signOut', icon: <LogoutOutlined />, label: t('shell.signOut') },
  ];

  const onClick = ({ key }: { key: string }) => {
    if (key === 'profile') navigate(`/${lang}/profile`);
    else if (key === 'orgs') navigate(`/${lang}/orgs`);
    else if (key === 'password') navigate(`/${lang}/changePassword`);
    else if (key === 'about') modal.info({ title: t('shell.about'), content: t('shell.version', { version: APP_VERSION }), okText: t('shell.ok') });
    else if (key === 'signOut')
      modal.confirm({
        title: t('shell.signOutTitle'),
        content: t('shell.signOutText'),
        okText: t('shell.ok'),
        cancelText: t('shell.cancel'),
        onOk: () => logout(),
      });
  };

  return (
    // autoFocus: opening moves the focus into the menu, where the arrow keys walk it (keyboard alone).
    <Dropdown trigger={['click']} autoFocus menu={{ items, onClick }}>
      {/* Named by its content, the visible name and role after a hidden "Account menu" (WCAG 2.5.3, label in name). */}
      <Button type="text">
        <span className="visually-hidden">{t('shell.userMenu')}</span>
        <Space>
          <Avatar size="small" icon={<UserOutlined />} aria-hidden />
          {username}
          {role && <Tag color={ROLE_COLORS[role]}>{t(`roles.${role}`)}</Tag>}
        </Space>
      </Button>
    </Dropdown>
  );
}

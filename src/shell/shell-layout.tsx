import { ProfileOutlined, QuestionCircleOutlined } from '@ant-design/icons';
import { Button, Layout, Space, Tooltip, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { LanguageSwitcher } from '../components/language-switcher';
import { useBrand } from '../providers/brand';
import { api } from '../providers/http';
import { canRead } from './ability';
import { OrgSwitcher } from './org-switcher';
import { screenOf } from './routes';
import { SideMenu } from './side-menu';
import { TimeToggle } from './time-toggle';
import { SupportButton } from './support-button';
import { UserMenu } from './user-menu';
import { WelcomeDialog } from './welcome-dialog';

/** The signed-in shell: side menu (256 px, 80 px collapsed), header, and the page; routes outside the role's rights go to the root. */
export function ShellLayout() {
  const { t } = useTranslation();
  const { lang } = useParams();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const brand = useBrand();
  const [collapsed, setCollapsed] = useState(false);
  const screen = screenOf(pathname);

  useEffect(() => {
    void api('POST', '/api/public/analytics/pageview', { path: pathname.slice(0, 500) }, { quiet: true }).catch(() => undefined);
  }, [pathname]);

  if (screen && !canRead(screen.subject)) return <Navigate to="/" replace />;

  return (
    <Layout style={{ minHeight: '100vh' }}>
      <Layout.Sider width={256} collapsedWidth={80} collapsible collapsed={collapsed} onCollapse={setCollapsed} theme="light" style={{ borderInlineEnd: '1px solid #f0f0f0' }}>
        <div style={{ height: 56, display: 'flex', alignItems: 'center', padding: '0 24px', fontWeight: 600, fontSize: 18, whiteSpace: 'nowrap', overflow: 'hidden' }}>
          {collapsed ? (brand.theme.platformName ?? t('app.platformName')).slice(0, 2) : (brand.theme.platformName ?? t('app.platformName'))}
        </div>
        <SideMenu collapsed={collapsed} />
        {!collapsed && !brand.theme.hideCubeDocumentation && (
          <div style={{ margin: 16, padding: 12, background: '#fafafa', borderRadius: 8 }}>
            <Typography.Text type="secondary">{t('shell.helpText')}</Typography.Text>
            <div>
              <a href={brand.theme.platformHelp ?? 'https://docs.demo.example.com'} target="_blank" rel="noreferrer">
                <QuestionCircleOutlined /> {t('shell.docs')}
              </a>
            </div>
          </div>
        )}
      </Layout.Sider>
      <Layout>
        <Layout.Header style={{ background: '#fff', padding: '0 16px', display: 'flex', alignItems: 'center', justifyContent: 'flex-end', gap: 12, borderBottom: '1px solid #f0f0f0' }}>
          <Space size="middle" wrap={false}>
            <Tooltip title={t('menu.taskcenter')}>
              <Button type="text" aria-label={t('menu.taskcenter')} icon={<ProfileOutlined />} onClick={() => navigate(`/${lang}/taskcenter`)} />
            </Tooltip>
            <TimeToggle />
            <OrgSwitcher />
            <LanguageSwitcher />
            <UserMenu />
          </Space>
        </Layout.Header>
        <Layout.Content style={{ padding: 24 }}>
          <Outlet />
        </Layout.Content>
        <SupportButton />
        <WelcomeDialog />
        {!brand.theme.hideFooter && (
          <Layout.Footer style={{ textAlign: 'center', color: '#8c8c8c' }}>{t('shell.footer', { name: brand.theme.platformName ?? t('app.platformName'), year: new Date().getFullYear() })}</Layout.Footer>
        )}
      </Layout>
    </Layout>
  );
}

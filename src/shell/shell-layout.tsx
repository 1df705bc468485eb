import { ApiOutlined, MenuFoldOutlined, MenuUnfoldOutlined, ProfileOutlined, QuestionCircleOutlined } from '@ant-design/icons';
import { Alert, App, Badge, Button, Layout, Space, Tooltip, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation, useNavigate, useParams } from 'react-router';
import { LanguageSwitcher } from '../components/language-switcher';
import { useProcessingTasks } from '../custom/taskcenter/tasks';
import { useBrand } from '../providers/brand';
import { api } from '../providers/http';
import { subscribeLive } from '../providers/live';
import { store } from '../providers/session-store';
import { useSessionValue } from '../providers/use-session-value';
import { refreshRights } from './rights';
import { canRead, currentAbility } from './ability';
import { BrandFooter, BrandLogo } from './brand-mark';
import { KeepAliveOutlet } from './keep-alive';
import { OrgSwitcher } from './org-switcher';
import { screenOf, type ScreenDef } from './routes';
import { SideMenu } from './side-menu';
import { TimeToggle } from './time-toggle';
import { SupportButton } from './support-button';
import { UserMenu } from './user-menu';
import { WelcomeDialog } from './welcome-dialog';

/**
 * A screen outside the role's rights leads to the root's page (the dashboard, SPEC.md section 2), which says why: the
 * screen's name as the menu calls it travels in the navigation's state (shown by DeniedNotice).
 */
function Denied({ screen }: { screen: ScreenDef }) {
  const { lang } = useParams();
  return <Navigate to={`/${lang}/dashboard/analysis`} replace state={{ denied: screen.highlights ?? screen.key }} />;
}

/** "You do not have access to Automation rules", with SPEC.md section 6's advice; closing it forgets it. */
function DeniedNotice() {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const denied = (location.state as { denied?: unknown } | null)?.denied;
  if (typeof denied !== 'string') return null;
  return (
    <Alert
      type="warning"
      showIcon
      closable
      style={{ marginBottom: 16 }}
      message={t('shell.noAccess', { page: t(`menu.${denied}`) })}
      description={t('errors.autoflowWriteMissing')}
      onClose={() => navigate(`${location.pathname}${location.search}`, { replace: true, state: null })}
    />
  );
}

/** The signed-in shell: side menu (256 px, 80 px collapsed), header, and the page; routes outside the role's rights go to the root. */
export function ShellLayout() {
  const { t } = useTranslation();
  const { lang } = useParams();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const brand = useBrand();
  const [collapsed, setCollapsed] = useState(false);
  // The rules re-render the shell when they change (live event, organisation switch).
  useSessionValue('permissions');
  const screen = screenOf(pathname);
  const mayReadTasks = canRead('task');
  const running = useProcessingTasks(mayReadTasks);

  const { search } = useLocation();
  useEffect(() => {
    void api('POST', '/api/public/analytics/pageview', { path: pathname.slice(0, 500) }, { quiet: true }).catch(() => undefined);
  }, [pathname]);
  // SPEC.md section 3's storage keys: the current menu item and the last screen with its query.
  useEffect(() => {
    if (!screen) return;
    store.set('navIndex', screen.highlights ?? screen.key);
    store.set('historyName', screen.key);
    store.set('historyQuery', search);
  }, [screen, search]);

  useEffect(() => {
    void refreshRights().catch(() => undefined);
    return subscribeLive('permissions', () => {
      void refreshRights().then(
        () => void message.info(t('shell.rightsChanged')),
        () => undefined,
      );
    });
  }, [message, t]);

  // Signed out meanwhile (401, 0502, another tab): the session handling decides where to go, not the rights check.
  if (!store.get('token')) return null;
  if (screen && !currentAbility().can(screen.action ?? 'read', screen.subject)) return <Denied screen={screen} />;
  // SPEC.md section 2: reports are hidden and lead to the SIM list when the partner has them switched off.
  if (screen?.feature === 'reports' && !brand.reportsEnabled) return <Navigate to={`/${lang}/sim/simCard`} replace />;

  return (
    <Layout style={{ minHeight: '100vh' }}>
      {/* The menu stays in place on a long page (sticky, scrolling inside itself when taller than the window) instead
          of scrolling away and leaving an empty white column. */}
      <Layout.Sider
        width={256}
        collapsedWidth={80}
        collapsible
        collapsed={collapsed}
        // antd's own trigger is a bare div a keyboard cannot reach: the header's button folds the menu instead.
        trigger={null}
        theme="light"
        style={{ borderInlineEnd: '1px solid #f0f0f0', position: 'sticky', top: 0, height: '100vh', overflowY: 'auto', scrollbarWidth: 'thin' }}
      >
        <div
          style={{
            height: 56,
            display: 'flex',
            alignItems: 'center',
            justifyContent: collapsed ? 'center' : 'flex-start',
            padding: collapsed ? 0 : '0 24px',
            overflow: 'hidden',
          }}
        >
          <BrandLogo collapsed={collapsed} />
        </div>
        <SideMenu collapsed={collapsed} />
        {!collapsed && !brand.theme.hideCubeDocumentation && (
          <div style={{ margin: 16, padding: 12, background: '#fafafa', borderRadius: 8 }}>
            <Typography.Text type="secondary">{t('shell.helpText')}</Typography.Text>
            {/* Each link a line of 28 px: two targets 16 px high, one under the other, are too small to hit (WCAG 2.5.8). */}
            <a
              href={brand.theme.platformHelp ?? 'https://docs.demo.example.com'}
              target="_blank"
              rel="noreferrer"
              style={{ display: 'block', lineHeight: '28px' }}
            >
              <QuestionCircleOutlined /> {t('shell.docs')}
            </a>
            {/* The public API's interactive reference, served by this server, opened beside the console. */}
            <a href="/api/public/reference" target="_blank" rel="noreferrer" style={{ display: 'block', lineHeight: '28px' }}>
              <ApiOutlined /> {t('shell.apiReference')}
            </a>
          </div>
        )}
      </Layout.Sider>
      {/* minWidth 0: a wide table scrolls inside itself instead of widening the page past the window. */}
      <Layout style={{ minWidth: 0 }}>
        <Layout.Header
          style={{
            background: '#fff',
            padding: '0 16px',
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'flex-end',
            gap: 12,
            borderBottom: '1px solid #f0f0f0',
          }}
        >
          <Button
            type="text"
            aria-label={t(collapsed ? 'shell.expandMenu' : 'shell.collapseMenu')}
            aria-expanded={!collapsed}
            icon={collapsed ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
            onClick={() => setCollapsed((c) => !c)}
            style={{ marginInlineEnd: 'auto' }}
          />
          <Space size="middle" wrap={false}>
            {mayReadTasks && (
              <Tooltip title={running ? `${t('menu.taskcenter')} · ${t('tasks.running', { count: running })}` : t('menu.taskcenter')}>
                <Badge count={running} size="small" offset={[-4, 4]}>
                  <Button type="text" aria-label={t('menu.taskcenter')} icon={<ProfileOutlined />} onClick={() => navigate(`/${lang}/taskcenter`)} />
                </Badge>
              </Tooltip>
            )}
            <TimeToggle />
            <OrgSwitcher />
            <LanguageSwitcher />
            <UserMenu />
          </Space>
        </Layout.Header>
        {/* At least a window high (less the 64 px header): the footer starts below the fold, so it is not pushed down
            in sight when a page's content arrives after the shell (layout shift, docs/decisions.md). */}
        <Layout.Content style={{ padding: 24, minHeight: 'calc(100vh - 64px)' }}>
          <DeniedNotice />
          <KeepAliveOutlet />
        </Layout.Content>
        <SupportButton />
        <WelcomeDialog />
        <BrandFooter />
      </Layout>
    </Layout>
  );
}

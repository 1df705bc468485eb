import { ConfigProvider, message, Spin } from 'antd';
import { lazy, Suspense, useEffect, useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { HttpEvents } from './components/http-events';
import { createBrowserRouter, createRoutesFromElements, Navigate, Outlet, Route, RouterProvider, useLocation, useParams } from 'react-router';
import { LIMITS } from '../common/limits';
import i18n, { antdLocaleOf, initialLanguage } from './i18n';
import { ConsoleApp } from './providers/console-app';
import { BrandProvider, brandLanguages, DEFAULT_BRAND, useBrand } from './providers/brand';
import { readableTheme } from './providers/readable-theme';
import { startDashboardCalls } from './early-calls';
import { prefetchDashboard } from './prefetch';
import { SCREENS } from './shell/routes';

message.config({ maxCount: LIMITS.maxToasts });

// Everything behind sign-in loads on demand: the sign-in page stays light (no table, chart or spreadsheet code).
const ShellLayout = lazy(() => import('./shell/shell-layout').then((m) => ({ default: m.ShellLayout })));
const AnalysisPage = lazy(() => import('./custom/dashboard/analysis-page').then((m) => ({ default: m.AnalysisPage })));
const TaskCenterPage = lazy(() => import('./custom/taskcenter/task-center-page').then((m) => ({ default: m.TaskCenterPage })));
const SimListPage = lazy(() => import('./custom/sim/sim-list-page').then((m) => ({ default: m.SimListPage })));
const BundleOrdersPage = lazy(() => import('./custom/bundles/bundle-orders-page').then((m) => ({ default: m.BundleOrdersPage })));
const CdrListPage = lazy(() => import('./custom/cdr/cdr-list-page').then((m) => ({ default: m.CdrListPage })));
const OrgsPage = lazy(() => import('./custom/org/org-pages').then((m) => ({ default: m.OrgsPage })));
const OrgCreatePage = lazy(() => import('./custom/org/org-pages').then((m) => ({ default: m.OrgCreatePage })));
const AccountsPage = lazy(() => import('./custom/org/account-pages').then((m) => ({ default: m.AccountsPage })));
const NewAccountPage = lazy(() => import('./custom/org/account-pages').then((m) => ({ default: m.NewAccountPage })));
const AccountDetailPage = lazy(() => import('./custom/org/account-pages').then((m) => ({ default: m.AccountDetailPage })));
const PoolsPage = lazy(() => import('./custom/pool/pool-pages').then((m) => ({ default: m.PoolsPage })));
const PoolDetailPage = lazy(() => import('./custom/pool/pool-pages').then((m) => ({ default: m.PoolDetailPage })));
const InvoicesPage = lazy(() => import('./custom/billing/invoice-pages').then((m) => ({ default: m.InvoicesPage })));
const InvoiceDetailPage = lazy(() => import('./custom/billing/invoice-pages').then((m) => ({ default: m.InvoiceDetailPage })));
const InvoiceSimDetailsPage = lazy(() => import('./custom/billing/invoice-pages').then((m) => ({ default: m.InvoiceSimDetailsPage })));
const ReportsPage = lazy(() => import('./custom/report/report-pages').then((m) => ({ default: m.ReportsPage })));
const HeatmapPage = lazy(() => import('./custom/dashboard/heatmap-page').then((m) => ({ default: m.HeatmapPage })));
const ChartViewPage = lazy(() => import('./custom/cdr/chart-view').then((m) => ({ default: m.ChartViewPage })));
const SimDetailPage = lazy(() => import('./custom/sim-detail/sim-detail-page').then((m) => ({ default: m.SimDetailPage })));
const SchemaResourcePage = lazy(() => import('./resources/schema-resource-page').then((m) => ({ default: m.SchemaResourcePage })));
const ProfilePage = lazy(() => import('./pages/account/profile-page').then((m) => ({ default: m.ProfilePage })));
const MessagePage = lazy(() => import('./custom/sms/message-page').then((m) => ({ default: m.MessagePage })));
const NotificationGroupsPage = lazy(() => import('./custom/developer/notification-groups-page').then((m) => ({ default: m.NotificationGroupsPage })));
const DeveloperPage = lazy(() => import('./custom/developer/developer-page').then((m) => ({ default: m.DeveloperPage })));
const ScheduleSmsPage = lazy(() => import('./custom/sms-schedules/schedule-page').then((m) => ({ default: m.ScheduleSmsPage })));
const ScheduleFormPage = lazy(() => import('./custom/sms-schedules/schedule-form').then((m) => ({ default: m.ScheduleFormPage })));
const AutoflowPage = lazy(() => import('./custom/autoflow/rule-list').then((m) => ({ default: m.AutoflowPage })));
// The builder's chunk carries @xyflow/react and the rule's forms: fetched only when the builder is opened.
const WorkFlowOperationPage = lazy(() => import('./custom/autoflow/builder-page').then((m) => ({ default: m.WorkFlowOperationPage })));
const TriggerPage = lazy(() => import('./custom/autoflow/trigger-page').then((m) => ({ default: m.TriggerPage })));
const ChangePasswordPage = lazy(() => import('./pages/account/change-password-page').then((m) => ({ default: m.ChangePasswordPage })));

/** /{lang}/...: a prefix the brand does not offer redirects to the user's language; a supported one becomes the language. */
function LanguageRoute() {
  const { lang } = useParams();
  const { pathname, search } = useLocation();
  const brand = useBrand();
  const offered = brandLanguages(brand);
  const supported = (offered as readonly string[]).includes(lang ?? '');
  useEffect(() => {
    if (!supported || !brand.loaded) return;
    localStorage.setItem('lang', lang!);
    if (i18n.language !== lang) void i18n.changeLanguage(lang);
  }, [lang, supported, brand.loaded]);
  // On a first visit the brand decides which languages exist: wait for it rather than guess.
  if (!brand.loaded) return <Spin fullscreen />;
  if (!supported) {
    // "/fr-FR/login" swaps the prefix; "/dashboard/analysis" gains one.
    const rest = /^[a-z]{2}(-[A-Za-z]{2,4})?$/.test(lang ?? '') ? pathname.replace(/^\/[^/]+/, '') : pathname;
    const wanted = initialLanguage();
    const target = offered.includes(wanted) ? wanted : (brand.theme.localizations?.defaultLanguage ?? offered[0]);
    return <Navigate to={`/${target}${rest}${search}`} replace />;
  }
  return <Outlet />;
}

/** Removes any hash marker from the address (SPEC.md section 1). */
function StripHash() {
  const { hash, pathname, search } = useLocation();
  useEffect(() => {
    if (hash) window.history.replaceState(null, '', `${pathname}${search}`);
  }, [hash, pathname, search]);
  return null;
}

/** antd takes the brand's colour (the red default when the brand call fails), text colours that read on it, and the language's locale. */
function Themed({ children }: { children: ReactNode }) {
  const { i18n: current } = useTranslation();
  const brand = useBrand();
  const color = brand.theme.themeColor ?? DEFAULT_BRAND.theme.themeColor!;
  const themed = useMemo(() => readableTheme(color), [color]);
  return (
    <ConfigProvider locale={antdLocaleOf(current.language)} theme={themed}>
      {children}
    </ConfigProvider>
  );
}

/**
 * Providers around every route: brand, theme, the toasts of antd's App (its dialogs join when signed in). Refine wraps
 * only the signed-in routes (src/signed-in.tsx).
 */
function Root() {
  return (
    <BrandProvider>
      <Themed>
        <ConsoleApp>
          <StripHash />
          <HttpEvents />
          <Outlet />
        </ConsoleApp>
      </Themed>
    </BrandProvider>
  );
}

/** The crash page (antd's Result with its pictures) is a chunk of its own: fetched when something breaks. */
const CrashPageLazy = lazy(() => import('./pages/static-pages').then((m) => ({ default: m.CrashPage })));
const CRASH = (
  <Suspense fallback={<Spin fullscreen />}>
    <CrashPageLazy />
  </Suspense>
);

// The signed-out pages and the signed-in routes' providers are route modules fetched when their route is entered
// (react-router loads a route's `lazy` before drawing it; on the first visit in parallel with the language's words).
const loginRoute = () => import('./pages/login/login-page').then((m) => ({ Component: m.LoginPage }));
const staticPage = (name: 'TermsPage' | 'PrivacyPage' | 'TokenExpiredPage' | 'NotFoundPage') => () =>
  import('./pages/static-pages').then((m) => ({ Component: m[name] }));
const signedInRoute = () => {
  // The shell, and on the dashboard its page, are fetched beside the signed-in providers rather than one after the
  // other as each lazy part is drawn: a signed-in first load waits for one round of chunks instead of three (as
  // Lighthouse measures the dashboard, bench/lighthouse.ts). Only here, where a signed-in route is entered: the
  // sign-in page fetches none of them.
  if (/\/dashboard\/analysis\/?$/.test(window.location.pathname)) {
    prefetchDashboard();
    // Its figures are asked for now too, not once the page is drawn (src/early-calls.ts).
    startDashboardCalls(window.location.search);
  } else import('./shell/shell-layout').catch(() => undefined);
  return import('./signed-in').then((m) => ({ Component: m.SignedIn }));
};

/** Every screen's page, by its key in src/shell/routes.ts. */
const PAGES: Record<string, ReactNode> = {
  analysis: <AnalysisPage />,
  heatmap: <HeatmapPage />,
  taskcenter: <TaskCenterPage />,
  simCard: <SimListPage />,
  simDetail: <SimDetailPage />,
  service: <BundleOrdersPage />,
  cdrCard: <CdrListPage />,
  orgs: <OrgsPage />,
  orgscreate: <OrgCreatePage />,
  setCard: <AccountsPage />,
  newUser: <NewAccountPage />,
  userDetail: <AccountDetailPage />,
  shared: <PoolsPage />,
  finance: <InvoicesPage />,
  reports: <ReportsPage />,
  chartView: <ChartViewPage />,
  financeDetailsPage: <InvoiceDetailPage />,
  financeSimDetailsPage: <InvoiceSimDetailsPage />,
  developerView: <DeveloperPage />,
  notifications: <NotificationGroupsPage />,
  message: <MessagePage />,
  scheduleSmsDetails: <ScheduleSmsPage />,
  scheduleSmsAdd: <ScheduleFormPage />,
  autoflow: <AutoflowPage />,
  workFlowOperation: <WorkFlowOperationPage />,
  trigger: <TriggerPage />,
};

// A data router, so that a page can hold the user back (the task center's Leave or Stay).
const router = createBrowserRouter(
  createRoutesFromElements(
    <Route element={<Root />} errorElement={CRASH} hydrateFallbackElement={<Spin fullscreen />}>
      <Route path="/" element={<Navigate to={`/${initialLanguage()}/dashboard/analysis`} replace />} />
      <Route path="/login" element={<Navigate to={`/${initialLanguage()}/login`} replace />} />
      <Route path="/401" lazy={staticPage('TokenExpiredPage')} />
      <Route path="/:lang" element={<LanguageRoute />}>
        <Route index element={<Navigate to="dashboard/analysis" replace />} />
        <Route path="login" lazy={loginRoute} />
        <Route path="termsOfUse" lazy={staticPage('TermsPage')} />
        <Route path="privacy" lazy={staticPage('PrivacyPage')} />
        <Route path="401" lazy={staticPage('TokenExpiredPage')} />
        <Route lazy={signedInRoute}>
          <Route element={<ShellLayout />} errorElement={CRASH}>
            {/* A page that crashes shows the crash page inside the shell, menu and header still there. */}
            <Route errorElement={CRASH}>
              {SCREENS.map((s) => (
                <Route key={s.key} path={s.path} element={PAGES[s.key]} />
              ))}
              <Route path="sim/shared/:id" element={<PoolDetailPage />} />
              {/* Resources a schema alone adds (docs/schemas.md). */}
              <Route path="r/:resource" element={<SchemaResourcePage page="list" />} />
              <Route path="r/:resource/create" element={<SchemaResourcePage page="create" />} />
              <Route path="r/:resource/show/:id" element={<SchemaResourcePage page="show" />} />
              <Route path="r/:resource/edit/:id" element={<SchemaResourcePage page="edit" />} />
              <Route path="profile" element={<ProfilePage />} />
              <Route path="changePassword" element={<ChangePasswordPage />} />
            </Route>
          </Route>
        </Route>
        <Route path="*" lazy={staticPage('NotFoundPage')} />
      </Route>
    </Route>,
  ),
);

export default function App() {
  return <RouterProvider router={router} />;
}

import { Authenticated, Refine, type I18nProvider } from '@refinedev/core';
import routerProvider from '@refinedev/react-router';
import { App as AntApp, ConfigProvider, message, Spin } from 'antd';
import enUS from 'antd/locale/en_US';
import esES from 'antd/locale/es_ES';
import zhCN from 'antd/locale/zh_CN';
import zhTW from 'antd/locale/zh_TW';
import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { HttpEvents } from './components/http-events';
import { BrowserRouter, Navigate, Outlet, Route, Routes, useLocation, useParams } from 'react-router';
import { LANGUAGES, LIMITS, type Language } from '../common/limits';
import i18n, { initialLanguage } from './i18n';
import { ChangePasswordPage } from './pages/account/change-password-page';
import { ProfilePage } from './pages/account/profile-page';
import { LandingPage } from './pages/landing-page';
import { ScreenPlaceholder } from './pages/screen-placeholder';
import { BrandProvider, useBrand } from './providers/brand';
import { ShellLayout } from './shell/shell-layout';
import { SCREENS } from './shell/routes';
import { LoginPage } from './pages/login/login-page';
import { NotFoundPage, PrivacyPage, TermsPage, TokenExpiredPage } from './pages/static-pages';
import { accessControlProvider } from './providers/access-control';
import { authProvider, saveRedirect } from './providers/auth-provider';

message.config({ maxCount: LIMITS.maxToasts });
const ANTD_LOCALES = { 'en-US': enUS, 'zh-CN': zhCN, 'zh-TW': zhTW, 'es-ES': esES };

const i18nProvider: I18nProvider = {
  translate: (key, options) => String(i18n.t(key, options as never)),
  changeLocale: (lang) => i18n.changeLanguage(lang),
  getLocale: () => i18n.language,
};

/** /{lang}/...: an unsupported prefix redirects to the user's language; a supported one becomes the language. */
function LanguageRoute() {
  const { lang } = useParams();
  const { pathname, search } = useLocation();
  const supported = (LANGUAGES as readonly string[]).includes(lang ?? '');
  useEffect(() => {
    if (supported && i18n.language !== lang) {
      void i18n.changeLanguage(lang);
      localStorage.setItem('lang', lang!);
    }
  }, [lang, supported]);
  if (!supported) {
    // "/fr-FR/login" swaps the prefix; "/dashboard/analysis" gains one.
    const rest = /^[a-z]{2}(-[A-Za-z]{2,4})?$/.test(lang ?? '') ? pathname.replace(/^\/[^/]+/, '') : pathname;
    return <Navigate to={`/${initialLanguage()}${rest}${search}`} replace />;
  }
  return <Outlet />;
}

/** A signed-out visitor of a protected route: remember it, go to sign-in. */
function ToLogin() {
  const { pathname, search } = useLocation();
  const { lang } = useParams();
  saveRedirect(`${pathname}${search}`);
  return <Navigate to={`/${lang ?? initialLanguage()}/login`} replace />;
}

function Protected() {
  return (
    <Authenticated key="protected" loading={<Spin fullscreen />} fallback={<ToLogin />}>
      <Outlet />
    </Authenticated>
  );
}

/** Removes any hash marker from the address (SPEC.md section 1). */
function StripHash() {
  const { hash, pathname, search } = useLocation();
  useEffect(() => {
    if (hash) window.history.replaceState(null, '', `${pathname}${search}`);
  }, [hash, pathname, search]);
  return null;
}

/** antd takes the brand's colour (the red default when the brand call fails) and the language's locale. */
function Themed({ children }: { children: ReactNode }) {
  const { i18n: current } = useTranslation();
  const brand = useBrand();
  return (
    <ConfigProvider locale={ANTD_LOCALES[current.language as Language] ?? enUS} theme={{ token: { colorPrimary: brand.theme.themeColor ?? '#d4380d' } }}>
      {children}
    </ConfigProvider>
  );
}

export default function App() {
  return (
    <BrowserRouter>
      <BrandProvider>
      <Themed>
        <AntApp>
          <Refine routerProvider={routerProvider} authProvider={authProvider} accessControlProvider={accessControlProvider} i18nProvider={i18nProvider} options={{ disableTelemetry: true }}>
            <StripHash />
            <HttpEvents />
            <Routes>
              <Route path="/" element={<Navigate to={`/${initialLanguage()}/dashboard/analysis`} replace />} />
              <Route path="/login" element={<Navigate to={`/${initialLanguage()}/login`} replace />} />
              <Route path="/401" element={<TokenExpiredPage />} />
              <Route path="/:lang" element={<LanguageRoute />}>
                <Route index element={<Navigate to="dashboard/analysis" replace />} />
                <Route path="login" element={<LoginPage />} />
                <Route path="termsOfUse" element={<TermsPage />} />
                <Route path="privacy" element={<PrivacyPage />} />
                <Route path="401" element={<TokenExpiredPage />} />
                <Route element={<Protected />}>
                  <Route element={<ShellLayout />}>
                    <Route path="dashboard/analysis" element={<LandingPage />} />
                    {SCREENS.filter((s) => s.key !== 'analysis').map((s) => (
                      <Route key={s.key} path={s.path} element={<ScreenPlaceholder />} />
                    ))}
                    <Route path="profile" element={<ProfilePage />} />
                    <Route path="changePassword" element={<ChangePasswordPage />} />
                  </Route>
                </Route>
                <Route path="*" element={<NotFoundPage />} />
              </Route>
            </Routes>
          </Refine>
        </AntApp>
      </Themed>
      </BrandProvider>
    </BrowserRouter>
  );
}

/**
 * Everything the signed-in routes share, in a chunk of its own: Refine with its data, live, auth, access
 * and i18n providers (and with them @tanstack/query, qs and the rest of Refine's data layer), and the check that sends
 * a signed-out visitor to sign-in, and the dialog half of antd's App (src/providers/console-dialogs.tsx). The sign-in page and the other signed-out pages never load it; the sign-in page
 * prefetches it (src/prefetch.ts).
 */
import { Authenticated, Refine, type I18nProvider } from '@refinedev/core';
import routerProvider from '@refinedev/react-router';
import { Spin } from 'antd';
import { Suspense } from 'react';
import { Navigate, Outlet, useLocation, useParams } from 'react-router';
import i18n, { followDayjsLocale, initialLanguage } from './i18n';
import { ConsoleDialogs } from './providers/console-dialogs';
import { accessControlProvider } from './providers/access-control';
import { authProvider, saveRedirect } from './providers/auth-provider';
import { dataProvider } from './providers/data-provider';
import { retryRead } from './providers/http';
import { liveProvider } from './providers/live';

// The date pickers of the signed-in pages speak the console's language (dayjs's locale, src/i18n.ts).
followDayjsLocale();

const i18nProvider: I18nProvider = {
  translate: (key, options) => String(i18n.t(key, options as never)),
  changeLocale: (lang) => i18n.changeLanguage(lang),
  getLocale: () => i18n.language,
};

/** A signed-out visitor of a protected route: remember it, go to sign-in. */
function ToLogin() {
  const { pathname, search } = useLocation();
  const { lang } = useParams();
  saveRedirect(`${pathname}${search}`);
  return <Navigate to={`/${lang ?? initialLanguage()}/login`} replace />;
}

/** The protected routes: Refine around them, and only a signed-in person gets through. */
export function SignedIn() {
  return (
    <ConsoleDialogs>
      <Refine
        routerProvider={routerProvider}
        dataProvider={dataProvider}
        liveProvider={liveProvider}
        authProvider={authProvider}
        accessControlProvider={accessControlProvider}
        i18nProvider={i18nProvider}
        options={{ disableTelemetry: true, liveMode: 'auto', reactQuery: { clientConfig: { defaultOptions: { queries: { retry: retryRead } } } } }}
      >
        <Authenticated key="protected" loading={<Spin fullscreen />} fallback={<ToLogin />}>
          <Suspense fallback={<Spin fullscreen />}>
            <Outlet />
          </Suspense>
        </Authenticated>
      </Refine>
    </ConsoleDialogs>
  );
}

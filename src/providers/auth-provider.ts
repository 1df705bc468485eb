/** Refine auth provider: sign-in, session fetch from the refresh cookie, sign-out that always clears. Returns results, never throws. */
import type { AuthProvider } from '@refinedev/core';
import { api, refreshOnce, signOutOnServer, type HttpError } from './http';
import { clearSession, currentRole, saveSession, store, type SessionAnswer } from './session-store';

export interface LoginParams {
  username: string;
  password: string;
  verificationCode: string;
  challengeId?: string;
  agreeTerms: boolean;
}

const REDIRECT_KEY = 'redirectAfterLogin';
/** Where the last person signed out: the next one to sign in in this tab starts on the landing page, not there. */
const SIGNED_OUT_AT_KEY = 'signedOutAt';
const lang = () => store.get('lang') ?? 'en-US';
export const landingPath = () => `/${lang()}/dashboard/analysis`;

/**
 * Remember where a signed-out visitor wanted to go. Not the page someone just signed out of: the sign-in that follows
 * may be another person's, who would otherwise open on the previous person's page (their task center, say).
 */
export function saveRedirect(path: string): void {
  if (sessionStorage.getItem(SIGNED_OUT_AT_KEY) === path) return;
  sessionStorage.setItem(REDIRECT_KEY, path);
}

/** Fetch the session from the identity service (the httpOnly refresh cookie); shares an in-flight refresh. */
export const fetchSession = (): Promise<boolean> => refreshOnce();

export const authProvider: AuthProvider = {
  login: async (params: LoginParams) => {
    try {
      const session = await api<SessionAnswer>('POST', '/api/identity/sso/signin/direct/cube/offline-access', params, { quiet: true });
      saveSession(session);
      sessionStorage.removeItem(SIGNED_OUT_AT_KEY);
      // SPEC.md section 1: the first sign-in is welcomed.
      if (session.user.logins_count === 1) sessionStorage.setItem('welcome', '1');
      const target = sessionStorage.getItem(REDIRECT_KEY);
      sessionStorage.removeItem(REDIRECT_KEY);
      return { success: true, redirectTo: target ?? landingPath() };
    } catch (err) {
      const e = err as HttpError;
      return { success: false, error: { name: String(e.statusCode), message: e.message } };
    }
  },
  logout: async () => {
    // Whatever the server answers (or if it is down), the local session is gone.
    const at = `${window.location.pathname}${window.location.search}`;
    await signOutOnServer();
    clearSession();
    sessionStorage.setItem(SIGNED_OUT_AT_KEY, at);
    return { success: true, redirectTo: `/${lang()}/login` };
  },
  check: async () => {
    if (store.get('token')) return { authenticated: true };
    if (await fetchSession()) return { authenticated: true };
    return { authenticated: false, redirectTo: `/${lang()}/login` };
  },
  // The HTTP helper already acts on every error as SPEC.md section 8 says (401 → /401, 0502 → modal): Refine
  // must not sign out on top of it and send the user somewhere else.
  onError: async () => ({}),
  getIdentity: async () => {
    const id = store.get('userId');
    if (!id) return null;
    return { id, name: store.get('username'), email: store.get('userEmail'), role: currentRole(), partnerCode: store.get('partnerCode') };
  },
  getPermissions: async () => currentRole(),
};

import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { LIMITS } from '../../common/limits';
import { configureHttp, signOutOnServer, toastOf } from '../providers/http';
import { useConsoleApp } from '../providers/console-app';
import { clearSession, store } from '../providers/session-store';

/** Connects the HTTP helper's session events to toasts, dialogs and navigation (SPEC.md sections 4 and 8). */
export function HttpEvents() {
  const { message, modal } = useConsoleApp();
  const { t } = useTranslation();
  const navigate = useNavigate();
  // Every call in flight may meet 0502: one modal is enough.
  const sessionModalOpen = useRef(false);
  // The words of the error toasts on screen, oldest first (each toast's key is its words).
  const toastsShown = useRef<string[]>([]);
  useEffect(() => {
    const lang = () => store.get('lang') ?? 'en-US';
    configureHttp({
      onEvent: (e) => {
        switch (e.type) {
          case 'toast': {
            const toast = toastOf(e);
            const content = 'key' in toast ? t(toast.key) : toast.text;
            // The same words replace their own toast instead of stacking: calls failing alike show once. At most
            // three at a time (SPEC.md section 9): the oldest gives way.
            const shown = toastsShown.current;
            if (!shown.includes(content)) {
              shown.push(content);
              while (shown.length > LIMITS.maxToasts) message.destroy(shown.shift());
            }
            void message.error({ content, key: content, onClose: () => void (toastsShown.current = toastsShown.current.filter((k) => k !== content)) });
            break;
          }
          case 'signedOut':
            void message.error(e.message);
            navigate(`/${lang()}/login`, { replace: true });
            break;
          case 'tokenExpired':
            navigate('/401', { replace: true });
            break;
          case 'sessionExpired':
            if (sessionModalOpen.current) break;
            // The dialogs come with the signed-in routes (src/providers/console-app.tsx); without a session page there
            // is nothing to warn about: sign out as the dialog's OK would.
            if (typeof modal.warning !== 'function') {
              void signOutOnServer().then(() => {
                clearSession();
                window.location.assign(`/${lang()}/login`);
              });
              break;
            }
            sessionModalOpen.current = true;
            modal.warning({
              title: t('http.sessionExpiredTitle'),
              content: e.message,
              okText: t('shell.ok'),
              // Signs out for real (the refresh cookie too), so that the stale session cannot be fetched again.
              onOk: async () => {
                await signOutOnServer();
                clearSession();
                window.location.assign(`/${lang()}/login`);
              },
            });
            break;
        }
      },
    });
  }, [message, modal, navigate, t]);
  return null;
}

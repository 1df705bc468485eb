import { App } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { configureHttp, signOutOnServer } from '../providers/http';
import { clearSession, store } from '../providers/session-store';

/** Connects the HTTP helper's session events to toasts, dialogs and navigation (SPEC.md sections 4 and 8). */
export function HttpEvents() {
  const { message, modal } = App.useApp();
  const { t } = useTranslation();
  const navigate = useNavigate();
  // Every call in flight may meet 0502: one modal is enough.
  const sessionModalOpen = useRef(false);
  useEffect(() => {
    const lang = () => store.get('lang') ?? 'en-US';
    configureHttp({
      onEvent: (e) => {
        switch (e.type) {
          case 'toast':
            void message.error(e.message === 'Network Error' ? t('http.networkError') : e.message);
            break;
          case 'signedOut':
            void message.error(e.message);
            navigate(`/${lang()}/login`, { replace: true });
            break;
          case 'tokenExpired':
            navigate('/401', { replace: true });
            break;
          case 'sessionExpired':
            if (sessionModalOpen.current) break;
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

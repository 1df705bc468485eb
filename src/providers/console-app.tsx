/**
 * antd's App in two halves: `App.useApp()` answers everywhere as before, but the sign-in page does not load
 * the dialog and notification code. ConsoleApp (around every route) holds the toasts; ConsoleDialogs (around the
 * signed-in routes, src/signed-in.tsx) adds the modal and notification hooks when a person is signed in. One toast
 * holder for the whole console, so SPEC.md section 9's three toasts at a time hold across pages and the HTTP events.
 */
import { message, theme } from 'antd';
// antd's own context of App.useApp() (antd/es/app/context): filled here instead of by antd's App component.
import AppContext, { type useAppProps } from 'antd/es/app/context';
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { LIMITS } from '../../common/limits';

/**
 * App.useApp() without antd's App component: `import { App } from 'antd'` brings App, and with it the dialog and
 * notification code, into whatever imports it. The signed-out pages and the HTTP events use this one.
 */
export const useConsoleApp = (): useAppProps => useContext(AppContext);

export type AppDialogs = Pick<useAppProps, 'modal' | 'notification'>;

/** ConsoleDialogs hands its modal and notification APIs up through this. */
export const RegisterDialogs = createContext<(dialogs: AppDialogs | null) => void>(() => undefined);

// Until someone signs in there are no dialogs to open: the signed-out pages never ask for one.
const NONE = { modal: {}, notification: {} } as AppDialogs;

export function ConsoleApp({ children }: { children: ReactNode }) {
  const [messageApi, messageHolder] = message.useMessage({ maxCount: LIMITS.maxToasts });
  const [dialogs, setDialogs] = useState<AppDialogs | null>(null);
  const { token } = theme.useToken();
  const value = useMemo<useAppProps>(() => ({ message: messageApi, ...(dialogs ?? NONE) }), [messageApi, dialogs]);
  return (
    <AppContext.Provider value={value}>
      <RegisterDialogs.Provider value={setDialogs}>
        {/* The text styles antd's App sets on its own wrapper. */}
        <div className="ant-app" style={{ color: token.colorText, fontSize: token.fontSize, lineHeight: token.lineHeight, fontFamily: token.fontFamily }}>
          {messageHolder}
          {children}
        </div>
      </RegisterDialogs.Provider>
    </AppContext.Provider>
  );
}

/** The signed-in half of ConsoleApp (src/providers/console-app.tsx): antd's modal and notification hooks. */
import { Modal, notification } from 'antd';
import { useContext, useEffect, useState, type ReactNode } from 'react';
import { RegisterDialogs } from './console-app';

export function ConsoleDialogs({ children }: { children: ReactNode }) {
  const [modal, modalHolder] = Modal.useModal();
  const [notificationApi, notificationHolder] = notification.useNotification();
  const register = useContext(RegisterDialogs);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    register({ modal, notification: notificationApi });
    setReady(true);
    return () => register(null);
  }, [register, modal, notificationApi]);
  return (
    <>
      {modalHolder}
      {notificationHolder}
      {/* The pages draw once App.useApp() has its modal: none of them finds an empty one. */}
      {ready && children}
    </>
  );
}

import { Modal, Result } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * The first sign-in's welcome, with confetti (loaded only when it is shown). The confetti draw on the page's own thread:
 * canvas-confetti's default worker comes from a blob: URL, which the Content-Security-Policy (script-src 'self') refuses.
 */
export function WelcomeDialog() {
  const { t } = useTranslation();
  const [open, setOpen] = useState(() => sessionStorage.getItem('welcome') === '1');
  useEffect(() => {
    if (!open) return;
    sessionStorage.removeItem('welcome');
    void import('canvas-confetti').then(({ default: confetti }) => {
      const fire = confetti.create(undefined, { resize: true, useWorker: false, disableForReducedMotion: true });
      // Above the dialog and its mask (antd's modals sit at z-index 1000).
      void fire({ particleCount: 160, spread: 80, origin: { y: 0.4 }, zIndex: 1100 });
    });
  }, [open]);
  return (
    <Modal open={open} footer={null} onCancel={() => setOpen(false)} centered>
      <Result status="success" title={t('shell.welcomeFirstSignIn')} />
    </Modal>
  );
}

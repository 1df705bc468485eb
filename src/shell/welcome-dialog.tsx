import { Modal, Result } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** The first sign-in's welcome, with confetti (loaded only when it is shown). */
export function WelcomeDialog() {
  const { t } = useTranslation();
  const [open, setOpen] = useState(() => sessionStorage.getItem('welcome') === '1');
  useEffect(() => {
    if (!open) return;
    sessionStorage.removeItem('welcome');
    void import('canvas-confetti').then(({ default: confetti }) => confetti({ particleCount: 160, spread: 80, origin: { y: 0.4 }, disableForReducedMotion: true }));
  }, [open]);
  return (
    <Modal open={open} footer={null} onCancel={() => setOpen(false)} centered>
      <Result status="success" title={t('shell.welcomeTitle')} subTitle={t('shell.welcomeText')} />
    </Modal>
  );
}

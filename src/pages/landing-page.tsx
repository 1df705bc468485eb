import { Card, Empty, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { store } from '../providers/session-store';

/** The landing page after sign-in until the dashboard issue fills it. */
export function LandingPage() {
  const { t } = useTranslation();
  return (
    <>
      <Typography.Title level={3}>{t('menu.analysis')}</Typography.Title>
      <Typography.Paragraph>{t('landing.welcome', { name: store.get('username') ?? '' })}</Typography.Paragraph>
      <Card>
        <Empty description={t('landing.empty')} />
      </Card>
    </>
  );
}

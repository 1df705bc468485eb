import { Card, Empty, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { screenOf } from '../shell/routes';

/** A screen that a later issue fills: its title and a real empty state, never a dead link. */
export function ScreenPlaceholder() {
  const { t } = useTranslation();
  const screen = screenOf(useLocation().pathname);
  return (
    <>
      <Typography.Title level={3}>{t(`menu.${screen?.key ?? 'analysis'}`)}</Typography.Title>
      <Card>
        <Empty description={t('shell.comingSoon')} />
      </Card>
    </>
  );
}

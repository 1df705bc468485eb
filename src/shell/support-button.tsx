import { CustomerServiceOutlined } from '@ant-design/icons';
import { FloatButton, Popover, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useBrand } from '../providers/brand';

/** The floating Support button: an English and a Spanish support e-mail, unless the theme hides it. */
export function SupportButton() {
  const { t } = useTranslation();
  const { theme } = useBrand();
  const support = theme.support;
  if (support?.hideSupport || (!support?.englishEmail && !support?.spanishEmail)) return null;
  const content = (
    <div>
      {support.englishEmail && (
        <div>
          <Typography.Text type="secondary">{t('shell.supportEnglish')}</Typography.Text> <a href={`mailto:${support.englishEmail}`}>{support.englishEmail}</a>
        </div>
      )}
      {support.spanishEmail && (
        <div>
          <Typography.Text type="secondary">{t('shell.supportSpanish')}</Typography.Text> <a href={`mailto:${support.spanishEmail}`}>{support.spanishEmail}</a>
        </div>
      )}
    </div>
  );
  return (
    <Popover content={content} title={t('shell.support')} trigger="click" placement="topLeft">
      <FloatButton icon={<CustomerServiceOutlined />} tooltip={t('shell.support')} aria-label={t('shell.support')} />
    </Popover>
  );
}

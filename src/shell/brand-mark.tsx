/**
 * The logo and footer variants (SPEC.md section 1): the platform name in the stored theme picks them. Logos are drawn
 * in the brand's colour, so a partner's palette needs no image upload; a login logo URL in the theme wins on sign-in.
 */
import { Layout, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useBrand } from '../providers/brand';
import { logoVariantOf } from './brand-logo';

export { BrandLogo, logoVariantOf, type LogoVariant } from './brand-logo';

/** The footer of the brand's variant; hidden when the theme says so. */
export function BrandFooter() {
  const { t } = useTranslation();
  const { theme } = useBrand();
  if (theme.hideFooter) return null;
  const name = theme.platformName ?? t('app.platformName');
  return (
    <Layout.Footer className="brand-footer" style={{ textAlign: 'center', background: 'transparent' }}>
      <Typography.Text type="secondary">{t(`brand.footer.${logoVariantOf(theme)}`, { name, year: new Date().getFullYear() })}</Typography.Text>
    </Layout.Footer>
  );
}

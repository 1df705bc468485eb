/**
 * The brand's logo mark (SPEC.md section 1): the platform name in the stored theme picks the variant, drawn in the
 * brand's colour. Apart from brand-mark.tsx's footer so that the sign-in page loads no Layout or Typography code.
 */
import { useTranslation } from 'react-i18next';
import { useBrand, type BrandTheme } from '../providers/brand';
import { readableShade } from '../providers/readable-theme';

export type LogoVariant = 'default' | 'nova' | 'aurora' | 'terra';

const BY_NAME: Record<string, LogoVariant> = { 'nova iot': 'nova', 'aurora connect': 'aurora', 'terra m2m': 'terra' };

/** The logo and footer variant of a theme, by its platform name. */
export const logoVariantOf = (theme: BrandTheme): LogoVariant => BY_NAME[(theme.platformName ?? '').trim().toLowerCase()] ?? 'default';

function Shape({ variant, color }: { variant: LogoVariant; color: string }) {
  switch (variant) {
    case 'nova':
      return <path d="M16 3l3.5 8.5L28 13l-6.5 6 2 9L16 23.5 8.5 28l2-9L4 13l8.5-1.5z" fill={color} />;
    case 'aurora':
      return (
        <g fill="none" stroke={color} strokeWidth="3" strokeLinecap="round">
          <path d="M4 20c4-8 8-8 12 0s8 8 12 0" />
          <path d="M4 12c4-8 8-8 12 0s8 8 12 0" opacity=".55" />
        </g>
      );
    case 'terra':
      return (
        <g fill="none" stroke={color} strokeWidth="2.5">
          <circle cx="16" cy="16" r="12" />
          <path d="M4 16h24M16 4c-5 6-5 18 0 24M16 4c5 6 5 18 0 24" />
        </g>
      );
    default:
      return (
        <g fill={color}>
          <rect x="4" y="18" width="5" height="10" rx="1.5" />
          <rect x="13.5" y="11" width="5" height="17" rx="1.5" />
          <rect x="23" y="4" width="5" height="24" rx="1.5" />
        </g>
      );
  }
}

/** The brand's logo mark, with the platform name beside it unless collapsed. */
export function BrandLogo({ collapsed = false, size = 28 }: { collapsed?: boolean; size?: number }) {
  const { t } = useTranslation();
  const { theme } = useBrand();
  const name = theme.platformName ?? t('app.platformName');
  const variant = logoVariantOf(theme);
  return (
    <span style={{ display: 'inline-flex', alignItems: 'center', gap: 10, whiteSpace: 'nowrap' }}>
      <svg role="img" aria-label={t('brand.logo', { name })} data-variant={variant} width={size} height={size} viewBox="0 0 32 32">
        <Shape variant={variant} color={theme.themeColor ?? '#d4380d'} />
      </svg>
      {!collapsed && (
        <span style={{ fontWeight: 600, fontSize: size * 0.62, color: theme.themeColorDark ? readableShade(theme.themeColorDark, ['#ffffff']) : 'inherit' }}>
          {name}
        </span>
      )}
    </span>
  );
}

/**
 * Branding (SPEC.md sections 1 and 3): the brand of the page host, loaded at start; the red default theme when the
 * call fails. Applies what is not a colour token: the page title, the favicon and the brand's own stylesheet.
 */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { LANGUAGES, type Language } from '../../common/limits';
import { api } from './http';
import { store } from './session-store';

export interface BrandTheme {
  platformName?: string;
  themeColor?: string;
  themeColorDark?: string;
  customStyle?: string;
  logoFavicon?: string;
  platformTitle?: string;
  platformHelp?: string;
  login?: {
    backgroundColor?: string;
    logo?: string;
    hideLogo?: boolean;
    hideTitleLink?: boolean;
    title?: string;
    hidePrivacyPolicy?: boolean;
    hideContactUs?: boolean;
  };
  hideFooter?: boolean;
  localizations?: { supportedLanguages?: string[]; defaultLanguage?: string };
  support?: { hideSupport?: boolean; englishEmail?: string; spanishEmail?: string };
  hideCubeDocumentation?: boolean;
}

export interface Brand {
  partnerCode: string | null;
  variant: string;
  reportsEnabled: boolean;
  theme: BrandTheme;
  /** False until the brand call answered (or failed) on a first visit; a stored brand counts as loaded. */
  loaded?: boolean;
}

/** SPEC.md section 1: the default theme colour is a red. */
export const DEFAULT_BRAND: Brand = { partnerCode: null, variant: 'default', reportsEnabled: true, theme: { themeColor: '#d4380d' } };

/** The languages this brand offers (all four unless it names fewer), its default first when it names one. */
export function brandLanguages(brand: Brand): Language[] {
  const named = (brand.theme.localizations?.supportedLanguages ?? []).filter((l): l is Language => (LANGUAGES as readonly string[]).includes(l));
  return named.length ? named : [...LANGUAGES];
}

const BrandContext = createContext<Brand>(DEFAULT_BRAND);
export const useBrand = () => useContext(BrandContext);

function readStored(): Brand {
  try {
    const b = JSON.parse(store.get('theme') ?? 'null') as Brand | null;
    return b ? { ...DEFAULT_BRAND, ...b, theme: { ...DEFAULT_BRAND.theme, ...b.theme }, loaded: true } : { ...DEFAULT_BRAND, loaded: false };
  } catch {
    return { ...DEFAULT_BRAND, loaded: false };
  }
}

/** The brand's favicon, or a dot of its colour. */
function faviconOf(theme: BrandTheme): string {
  if (theme.logoFavicon) return theme.logoFavicon;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="${theme.themeColor ?? '#d4380d'}"/><circle cx="16" cy="16" r="6" fill="#fff"/></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

export function BrandProvider({ children }: { children: ReactNode }) {
  const [brand, setBrand] = useState<Brand>(readStored);
  useEffect(() => {
    api<Brand>('GET', `/api/main/brand/logo?url=${encodeURIComponent(window.location.host)}`, undefined, { quiet: true }).then(
      (b) => {
        store.set('theme', JSON.stringify(b));
        setBrand({ ...DEFAULT_BRAND, ...b, theme: { ...DEFAULT_BRAND.theme, ...b.theme }, loaded: true });
      },
      () => {
        store.remove('theme');
        setBrand({ ...DEFAULT_BRAND, loaded: true });
      },
    );
  }, []);
  useEffect(() => {
    const { theme } = brand;
    if (theme.platformTitle) document.title = theme.platformTitle;
    let icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    if (!icon) {
      icon = document.createElement('link');
      icon.rel = 'icon';
      document.head.appendChild(icon);
    }
    icon.href = faviconOf(theme);
    let style = document.getElementById('brand-custom-style');
    if (!style) {
      style = document.createElement('style');
      style.id = 'brand-custom-style';
      document.head.appendChild(style);
    }
    style.textContent = theme.customStyle ?? '';
  }, [brand]);
  return <BrandContext.Provider value={brand}>{children}</BrandContext.Provider>;
}

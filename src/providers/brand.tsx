/** Branding: the brand of the page host, loaded at start; the red default theme when the call fails. */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { api } from './http';
import { store } from './session-store';

export interface BrandTheme {
  platformName?: string;
  themeColor?: string;
  platformTitle?: string;
  platformHelp?: string;
  hideFooter?: boolean;
  hideCubeDocumentation?: boolean;
  support?: { hideSupport?: boolean; englishEmail?: string; spanishEmail?: string };
}

export interface Brand {
  partnerCode: string | null;
  variant: string;
  reportsEnabled: boolean;
  theme: BrandTheme;
}

/** SPEC.md section 1: the default theme colour is a red. */
export const DEFAULT_BRAND: Brand = { partnerCode: null, variant: 'default', reportsEnabled: true, theme: { themeColor: '#d4380d' } };

const BrandContext = createContext<Brand>(DEFAULT_BRAND);
export const useBrand = () => useContext(BrandContext);

export function BrandProvider({ children }: { children: ReactNode }) {
  const [brand, setBrand] = useState<Brand>(() => {
    try {
      return { ...DEFAULT_BRAND, ...(JSON.parse(store.get('theme') ?? 'null') as Brand | null) };
    } catch {
      return DEFAULT_BRAND;
    }
  });
  useEffect(() => {
    api<Brand>('GET', `/api/main/brand/logo?url=${encodeURIComponent(window.location.host)}`, undefined, { quiet: true }).then(
      (b) => {
        store.set('theme', JSON.stringify(b));
        setBrand({ ...DEFAULT_BRAND, ...b, theme: { ...DEFAULT_BRAND.theme, ...b.theme } });
      },
      () => {
        store.remove('theme');
        setBrand(DEFAULT_BRAND);
      },
    );
  }, []);
  useEffect(() => {
    if (brand.theme.platformTitle) document.title = brand.theme.platformTitle;
  }, [brand]);
  return <BrandContext.Provider value={brand}>{children}</BrandContext.Provider>;
}

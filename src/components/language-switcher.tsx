import { Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import type { Language } from '../../common/limits';
import { brandLanguages, useBrand } from '../providers/brand';

/** Switch language among those the brand offers: the URL prefix, the stored lang and i18next change together. */
export function LanguageSwitcher() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  const offered = brandLanguages(useBrand());
  const change = (lang: Language) => {
    localStorage.setItem('lang', lang);
    void i18n.changeLanguage(lang);
    const rest = pathname.replace(/^\/[^/]+/, '');
    navigate(`/${lang}${rest}${search}`, { replace: true });
  };
  return (
    <Select
      aria-label={t('language.label')}
      value={i18n.language as Language}
      onChange={change}
      style={{ width: 130 }}
      options={offered.map((l) => ({ value: l, label: t(`language.${l}`) }))}
    />
  );
}

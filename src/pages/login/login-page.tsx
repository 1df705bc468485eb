import { App, Button, Checkbox, Form, Input, theme as antdTheme } from 'antd';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { authProvider } from '../../providers/auth-provider';
import { useBrand } from '../../providers/brand';
import { prefetchDashboard, prefetchDashboardWhenIdle } from '../../prefetch';
import { BrandLogo } from '../../shell/brand-logo';
import { CaptchaImage, useChallenge } from './captcha';

// The language switcher (antd's Select) draws right after the form, in a box of its size; it is not needed to sign in.
const LanguageSwitcher = lazy(() => import('../../components/language-switcher').then((m) => ({ default: m.LanguageSwitcher })));
// The dialog (antd's Modal) is fetched when someone asks for it, not with the sign-in page.
const ForgotPasswordDialog = lazy(() => import('./forgot-password-dialog').then((m) => ({ default: m.ForgotPasswordDialog })));

const UNDERLINED = { textDecoration: 'underline' } as const;

interface Values {
  username: string;
  password: string;
  verificationCode: string;
  agreeTerms: boolean;
}

/** Sign-in: e-mail, password, picture code and the terms agreement (SPEC.md section 5). */
export function LoginPage() {
  const { t } = useTranslation();
  const { lang = 'en-US' } = useParams();
  const { message } = App.useApp();
  const { challenge, refresh } = useChallenge();
  const [forgotOpen, setForgotOpen] = useState(false);
  // Mounted on first use, then kept, so that it closes with its animation.
  const [forgotUsed, setForgotUsed] = useState(false);
  const [isPending, setPending] = useState(false);
  const navigate = useNavigate();
  const { theme } = useBrand();
  const { token } = antdTheme.useToken();
  const options = theme.login ?? {};
  const title = options.title || theme.platformName || t('app.platformName');
  const supportEmail = theme.support?.englishEmail;

  // Headings as antd's Typography.Title draws them (its tooltip and copy code stay out of the sign-in page).
  const heading = (level: 2 | 4, marginBottom: number | string) => ({
    color: token.colorTextHeading,
    fontWeight: token.fontWeightStrong,
    fontSize: level === 2 ? token.fontSizeHeading2 : token.fontSizeHeading4,
    lineHeight: level === 2 ? token.lineHeightHeading2 : token.lineHeightHeading4,
    margin: `0 0 ${typeof marginBottom === 'number' ? `${marginBottom}px` : marginBottom}`,
  });

  // The dashboard's chunks come while the person types (src/prefetch.ts).
  useEffect(prefetchDashboardWhenIdle, []);

  // The auth provider signs in (it never throws); Refine is not on this page (src/signed-in.tsx), so the page goes on
  // to where the provider says, as Refine's useLogin did.
  const submit = async (v: Values) => {
    setPending(true);
    const result = await authProvider.login({ ...v, username: v.username.trim(), challengeId: challenge?.challengeId });
    setPending(false);
    if (result.success) {
      if (result.redirectTo) navigate(result.redirectTo, { replace: true });
      return;
    }
    message.error(result.error?.message ?? t('errors.internal'));
    refresh();
  };

  return (
    <div style={{ minHeight: '100vh', display: 'flex', flexDirection: 'column', alignItems: 'center', justifyContent: 'center', background: options.backgroundColor || '#f5f5f5', padding: 24 }}>
      <div style={{ position: 'absolute', top: 16, right: 24 }}>
        <Suspense fallback={<div style={{ width: 130, height: token.controlHeight }} />}>
          <LanguageSwitcher />
        </Suspense>
      </div>
      {/* Drawn as antd's Card draws (its border, radius and padding), without the Card's tabs and skeleton code. */}
      <section style={{ width: 420, maxWidth: '100%', background: token.colorBgContainer, border: `${token.lineWidth}px ${token.lineType} ${token.colorBorderSecondary}`, borderRadius: token.borderRadiusLG, padding: token.paddingLG }}>
        {!options.hideLogo && (
          <div style={{ marginBottom: 12 }}>
            {options.logo ? <img src={options.logo} alt={t('brand.logo', { name: title })} style={{ maxHeight: 40 }} /> : <BrandLogo size={36} collapsed />}
          </div>
        )}
        <h2 style={heading(2, 0)}>
          {options.hideTitleLink || !theme.platformHelp ? (
            title
          ) : (
            <a href={theme.platformHelp} target="_blank" rel="noreferrer" style={{ color: 'inherit' }}>
              {title}
            </a>
          )}
        </h2>
        <p style={{ color: token.colorTextDescription, margin: `0 0 ${token.marginMD}px` }}>{t('login.subtitle')}</p>
        <h4 style={heading(4, '0.5em')}>{t('login.title')}</h4>
        <Form<Values> layout="vertical" requiredMark={false} onFinish={submit} initialValues={{ agreeTerms: false }}>
          <Form.Item name="username" label={t('login.email')} rules={[{ required: true, message: t('login.emailRequired') }, { type: 'email', message: t('login.emailInvalid') }]}>
            <Input autoComplete="username" size="large" />
          </Form.Item>
          <Form.Item name="password" label={t('login.password')} rules={[{ required: true, message: t('login.passwordRequired') }]}>
            <Input.Password autoComplete="current-password" size="large" onFocus={prefetchDashboard} />
          </Form.Item>
          <Form.Item label={t('login.code')} required>
            <div style={{ display: 'flex', gap: 8 }}>
              <Form.Item name="verificationCode" noStyle rules={[{ required: true, message: t('login.codeRequired') }]}>
                <Input aria-label={t('login.code')} size="large" autoComplete="off" />
              </Form.Item>
              <CaptchaImage challenge={challenge} onRefresh={refresh} />
            </div>
          </Form.Item>
          <Form.Item
            name="agreeTerms"
            valuePropName="checked"
            rules={[{ validator: (_, v) => (v ? Promise.resolve() : Promise.reject(new Error(t('login.agreeRequired')))) }]}
          >
            <Checkbox>
              <Trans
                i18nKey={options.hidePrivacyPolicy ? 'login.agreeTermsOnly' : 'login.agree'}
                // Underlined: inside a sentence a link must not rely on its colour alone (WCAG 1.4.1).
                components={{ terms: <Link to={`/${lang}/termsOfUse`} target="_blank" style={UNDERLINED} />, privacy: <Link to={`/${lang}/privacy`} target="_blank" style={UNDERLINED} /> }}
              />
            </Checkbox>
          </Form.Item>
          <Button type="primary" htmlType="submit" size="large" block loading={isPending}>
            {t('login.submit')}
          </Button>
          <div style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', marginTop: 8 }}>
            <Button
              type="link"
              onClick={() => {
                setForgotUsed(true);
                setForgotOpen(true);
              }}
              style={{ paddingLeft: 0 }}
            >
              {t('login.forgot')}
            </Button>
            {!options.hideContactUs && supportEmail && <a href={`mailto:${supportEmail}`}>{t('brand.contactUs')}</a>}
          </div>
        </Form>
      </section>
      {forgotUsed && (
        <Suspense fallback={null}>
          <ForgotPasswordDialog open={forgotOpen} onClose={() => setForgotOpen(false)} />
        </Suspense>
      )}
    </div>
  );
}

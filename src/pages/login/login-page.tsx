import { Button, Checkbox, theme as antdTheme } from 'antd';
// antd's Input and Password alone: `Input` from 'antd' brings the text area, search and one-time-code inputs too.
import Input from 'antd/es/input/Input';
import Password from 'antd/es/input/Password';
import { lazy, Suspense, useState, type CSSProperties, type FormEvent, type ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { authProvider } from '../../providers/auth-provider';
import { useConsoleApp } from '../../providers/console-app';
import { useBrand } from '../../providers/brand';
import { prefetchDashboard } from '../../prefetch';
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
type Field = keyof Values;
const FIELDS: Field[] = ['username', 'password', 'verificationCode', 'agreeTerms'];

// The e-mail rule of antd's form validator (@rc-component/async-validator), copied as it is written there, so the form
// answers as it did with antd's Form.
const EMAIL =
  // eslint-disable-next-line no-useless-escape
  /^(([^<>()\[\]\\.,;:\s@"]+(\.[^<>()\[\]\\.,;:\s@"]+)*)|(".+"))@((\[[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}])|(([a-zA-Z\-0-9\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]+\.)+[a-zA-Z\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]{2,}))$/;

/** The key of the message a field's value breaks, if any. */
function ruleBroken(field: Field, v: Values): string | undefined {
  switch (field) {
    case 'username':
      return !v.username.trim() ? 'login.emailRequired' : v.username.trim().length <= 320 && EMAIL.test(v.username.trim()) ? undefined : 'login.emailInvalid';
    case 'password':
      return v.password ? undefined : 'login.passwordRequired';
    case 'verificationCode':
      return v.verificationCode.trim() ? undefined : 'login.codeRequired';
    case 'agreeTerms':
      return v.agreeTerms ? undefined : 'login.agreeRequired';
  }
}

/** Sign-in: e-mail, password, picture code and the terms agreement (SPEC.md section 5). */
export function LoginPage() {
  const { t } = useTranslation();
  const { lang = 'en-US' } = useParams();
  const { message } = useConsoleApp();
  const { challenge, refresh } = useChallenge();
  const [forgotOpen, setForgotOpen] = useState(false);
  // Mounted on first use, then kept, so that it closes with its animation.
  const [forgotUsed, setForgotUsed] = useState(false);
  const [isPending, setPending] = useState(false);
  const navigate = useNavigate();
  const { theme } = useBrand();
  // hashId: antd scopes its link style to its components' class; the page's own links (the title, Contact us) read it.
  const { token, hashId } = antdTheme.useToken();
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

  // The auth provider signs in (it never throws); Refine is not on this page (src/signed-in.tsx), so the page goes on
  // to where the provider says, as Refine's useLogin did.
  // A form of four fields, checked here: antd's Form (rc-field-form, its validator and the label tooltips) weighs
  // about 30 KB gzip, an eighth of the sign-in budget. A field is checked on submit, then as it changes.
  const [values, setValues] = useState<Values>({ username: '', password: '', verificationCode: '', agreeTerms: false });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const change = <K extends Field>(field: K, value: Values[K]) => {
    const next = { ...values, [field]: value };
    setValues(next);
    if (field in errors) setErrors({ ...errors, [field]: ruleBroken(field, next) });
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const found = Object.fromEntries(FIELDS.map((f) => [f, ruleBroken(f, values)]));
    setErrors(found);
    const first = FIELDS.find((f) => found[f]);
    if (first) {
      document.getElementById(first)?.focus();
      return;
    }
    void submit(values);
  };
  const explain = (field: Field): ReactNode =>
    errors[field] ? (
      <div
        id={`${field}_help`}
        role="alert"
        style={{ color: token.colorError, fontSize: token.fontSize, lineHeight: token.lineHeight, minHeight: token.marginLG }}
      >
        {t(errors[field])}
      </div>
    ) : null;
  const status = (field: Field) => (errors[field] ? ('error' as const) : undefined);
  const described = (field: Field) => (errors[field] ? { 'aria-invalid': true, 'aria-describedby': `${field}_help` } : {});
  // Spaced and labelled as antd's vertical Form.Item.
  // With its message under it, a field's message takes the place of its bottom margin (as in antd's Form.Item).
  const item = (field: Field): CSSProperties => ({ marginBottom: errors[field] ? 0 : token.marginLG });
  const label: CSSProperties = { display: 'block', paddingBottom: token.paddingXS, color: token.colorTextHeading, lineHeight: token.lineHeight };
  /** A field as a block: its label, the control, its message under it. */
  const labelled = (field: Field, text: string, control: ReactNode) => (
    <div style={item(field)}>
      <label htmlFor={field} style={label}>
        {text}
      </label>
      {control}
      {explain(field)}
    </div>
  );

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
    <div
      className={hashId}
      style={{
        minHeight: '100vh',
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        background: options.backgroundColor || '#f5f5f5',
        padding: 24,
      }}
    >
      <div style={{ position: 'absolute', top: 16, right: 24 }}>
        <Suspense fallback={<div style={{ width: 130, height: token.controlHeight }} />}>
          <LanguageSwitcher />
        </Suspense>
      </div>
      {/* Drawn as antd's Card draws (its border, radius and padding), without the Card's tabs and skeleton code. */}
      <section
        style={{
          width: 420,
          maxWidth: '100%',
          background: token.colorBgContainer,
          border: `${token.lineWidth}px ${token.lineType} ${token.colorBorderSecondary}`,
          borderRadius: token.borderRadiusLG,
          padding: token.paddingLG,
        }}
      >
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
        <form noValidate onSubmit={onSubmit}>
          {labelled(
            'username',
            t('login.email'),
            <Input
              id="username"
              autoComplete="username"
              size="large"
              value={values.username}
              onChange={(e) => change('username', e.target.value)}
              status={status('username')}
              {...described('username')}
            />,
          )}
          {labelled(
            'password',
            t('login.password'),
            <Password
              id="password"
              autoComplete="current-password"
              size="large"
              value={values.password}
              onChange={(e) => change('password', e.target.value)}
              // The dashboard's chunks come while the person types the password (src/prefetch.ts).
              onFocus={prefetchDashboard}
              status={status('password')}
              {...described('password')}
            />,
          )}
          {labelled(
            'verificationCode',
            t('login.code'),
            <div style={{ display: 'flex', gap: 8 }}>
              <Input
                id="verificationCode"
                aria-label={t('login.code')}
                size="large"
                autoComplete="off"
                value={values.verificationCode}
                onChange={(e) => change('verificationCode', e.target.value)}
                status={status('verificationCode')}
                {...described('verificationCode')}
              />
              <CaptchaImage challenge={challenge} onRefresh={refresh} />
            </div>,
          )}
          <div style={item('agreeTerms')}>
            {/* A control's row is as tall as an input, as in antd's Form.Item. */}
            <div style={{ minHeight: token.controlHeight, display: 'flex', alignItems: 'center' }}>
              <Checkbox id="agreeTerms" checked={values.agreeTerms} onChange={(e) => change('agreeTerms', e.target.checked)} {...described('agreeTerms')}>
                <Trans
                  i18nKey={options.hidePrivacyPolicy ? 'login.agreeTermsOnly' : 'login.agree'}
                  // Underlined: inside a sentence a link must not rely on its colour alone (WCAG 1.4.1).
                  components={{
                    terms: <Link to={`/${lang}/termsOfUse`} target="_blank" style={UNDERLINED} />,
                    privacy: <Link to={`/${lang}/privacy`} target="_blank" style={UNDERLINED} />,
                  }}
                />
              </Checkbox>
            </div>
            {explain('agreeTerms')}
          </div>
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
        </form>
      </section>
      {forgotUsed && (
        <Suspense fallback={null}>
          <ForgotPasswordDialog open={forgotOpen} onClose={() => setForgotOpen(false)} />
        </Suspense>
      )}
    </div>
  );
}

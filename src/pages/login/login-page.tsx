import { useLogin } from '@refinedev/core';
import { App, Button, Card, Checkbox, Form, Input, Typography } from 'antd';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { LanguageSwitcher } from '../../components/language-switcher';
import { useBrand } from '../../providers/brand';
import { BrandLogo } from '../../shell/brand-mark';
import type { LoginParams } from '../../providers/auth-provider';
import { CaptchaImage, useChallenge } from './captcha';
import { ForgotPasswordDialog } from './forgot-password-dialog';

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
  const { mutate: login, isPending } = useLogin<LoginParams>();
  const { theme } = useBrand();
  const options = theme.login ?? {};
  const title = options.title || theme.platformName || t('app.platformName');
  const supportEmail = theme.support?.englishEmail;

  const submit = (v: Values) => {
    login(
      { ...v, username: v.username.trim(), challengeId: challenge?.challengeId },
      {
        onSuccess: (result) => {
          if (!result.success) {
            message.error(result.error?.message ?? t('errors.internal'));
            refresh();
          }
        },
      },
    );
  };

  return (
    <div style={{ minHeight: '100vh', display: 'flex', flexDirection: 'column', alignItems: 'center', justifyContent: 'center', background: options.backgroundColor || '#f5f5f5', padding: 24 }}>
      <div style={{ position: 'absolute', top: 16, right: 24 }}>
        <LanguageSwitcher />
      </div>
      <Card style={{ width: 420, maxWidth: '100%' }}>
        {!options.hideLogo && (
          <div style={{ marginBottom: 12 }}>
            {options.logo ? <img src={options.logo} alt={t('brand.logo', { name: title })} style={{ maxHeight: 40 }} /> : <BrandLogo size={36} collapsed />}
          </div>
        )}
        <Typography.Title level={2} style={{ marginBottom: 0 }}>
          {options.hideTitleLink || !theme.platformHelp ? (
            title
          ) : (
            <a href={theme.platformHelp} target="_blank" rel="noreferrer" style={{ color: 'inherit' }}>
              {title}
            </a>
          )}
        </Typography.Title>
        <Typography.Paragraph type="secondary">{t('login.subtitle')}</Typography.Paragraph>
        <Typography.Title level={4}>{t('login.title')}</Typography.Title>
        <Form<Values> layout="vertical" requiredMark={false} onFinish={submit} initialValues={{ agreeTerms: false }}>
          <Form.Item name="username" label={t('login.email')} rules={[{ required: true, message: t('login.emailRequired') }, { type: 'email', message: t('login.emailInvalid') }]}>
            <Input autoComplete="username" size="large" />
          </Form.Item>
          <Form.Item name="password" label={t('login.password')} rules={[{ required: true, message: t('login.passwordRequired') }]}>
            <Input.Password autoComplete="current-password" size="large" />
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
            <Button type="link" onClick={() => setForgotOpen(true)} style={{ paddingLeft: 0 }}>
              {t('login.forgot')}
            </Button>
            {!options.hideContactUs && supportEmail && <a href={`mailto:${supportEmail}`}>{t('brand.contactUs')}</a>}
          </div>
        </Form>
      </Card>
      <ForgotPasswordDialog open={forgotOpen} onClose={() => setForgotOpen(false)} />
    </div>
  );
}

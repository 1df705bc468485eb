import { Button, Result, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useEffect } from 'react';
import { Link, useParams, useRouteError } from 'react-router';
import { reportCrash } from '../providers/http';

function TextPage({ title, body }: { title: string; body: string }) {
  const { t } = useTranslation();
  const { lang = 'en-US' } = useParams();
  return (
    <div style={{ maxWidth: 760, margin: '48px auto', padding: 24, background: '#fff', borderRadius: 8 }}>
      <Typography.Title level={2}>{t(title)}</Typography.Title>
      <Typography.Paragraph>{t(body)}</Typography.Paragraph>
      <Link to={`/${lang}/login`}>{t('pages.back')}</Link>
    </div>
  );
}

export const TermsPage = () => <TextPage title="pages.termsTitle" body="pages.termsBody" />;
export const PrivacyPage = () => <TextPage title="pages.privacyTitle" body="pages.privacyBody" />;

/** A status page with one way on: a primary button to a page of the console, in the language last used. */
function StatusPage({ status, words, to, action }: { status: '403' | '404'; words: string; to: string; action: string }) {
  const { t } = useTranslation();
  const lang = localStorage.getItem('lang') ?? 'en-US';
  const link = (
    <Link to={`/${lang}/${to}`}>
      <Button type="primary">{t(action)}</Button>
    </Link>
  );
  return <Result status={status} title={t(`${words}Title`)} subTitle={t(`${words}Body`)} extra={link} />;
}

/** 401: the token is no longer valid. */
export const TokenExpiredPage = () => <StatusPage status="403" words="pages.expired" to="login" action="pages.toLogin" />;

export const NotFoundPage = () => <StatusPage status="404" words="pages.notFound" to="dashboard/analysis" action="pages.home" />;

/** A page that failed to draw: said plainly, reported, with a way back (instead of the router's developer screen). */
export function CrashPage() {
  const { t } = useTranslation();
  const error = useRouteError();
  const lang = localStorage.getItem('lang') ?? 'en-US';
  useEffect(() => {
    const message = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error);
    void reportCrash(message, window.location.href);
  }, [error]);
  return (
    <Result
      status="500"
      title={t('pages.crashTitle')}
      subTitle={t('pages.crashBody')}
      extra={[
        <Button key="reload" type="primary" onClick={() => window.location.reload()}>
          {t('pages.reload')}
        </Button>,
        <Button key="home" href={`/${lang}/dashboard/analysis`}>
          {t('pages.home')}
        </Button>,
      ]}
    />
  );
}

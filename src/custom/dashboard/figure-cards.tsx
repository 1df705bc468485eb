/** The dashboard's row of figures: SIMs by kind, and the period's data and SMS against the period before. */
import {
  AlertOutlined,
  ArrowDownOutlined,
  ArrowUpOutlined,
  CloudDownloadOutlined,
  CreditCardOutlined,
  MessageOutlined,
  RightOutlined,
  ThunderboltOutlined,
  WifiOutlined,
} from '@ant-design/icons';
import { Card, Col, Row, Skeleton, Space, Statistic, theme, Typography } from 'antd';
import { TextStatistic } from '../../components/text-statistic';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { expiringSoonWindow, type DashboardView } from '../../../common/dashboard';
import { formatKb } from '../../resources/cell';
import { changeOf, percent } from './format';
import type { CardFigures, Call } from './use-dashboard';
import { formatNumber } from '../../../common/numbers';

interface FigureProps {
  title: string;
  icon: ReactNode;
  value: string | null;
  footer?: ReactNode;
  /** Where a click on the card leads. */
  to?: string;
}

/** The value's line: one height whether it holds the figure or its placeholder, so nothing moves when figures arrive. */
const VALUE_STYLE = { fontSize: 26, fontWeight: 600, whiteSpace: 'nowrap', lineHeight: '40px', height: 40 } as const;

function Figure({ title, icon, value, footer, to }: FigureProps) {
  const heading = (
    <Space size={6}>
      {icon}
      {title}
    </Space>
  );
  const card = (
    <Card hoverable={Boolean(to)} style={{ height: '100%' }} styles={{ body: { padding: '16px 20px' } }}>
      {value === null ? (
        // Its title is known at once; only the figure waits, as a bar of the figure's size in the figure's place.
        <Statistic
          title={heading}
          value=""
          valueStyle={VALUE_STYLE}
          valueRender={() => <Skeleton.Input active size="small" style={{ width: 96, verticalAlign: 'middle' }} />}
        />
      ) : (
        <TextStatistic title={heading} value={value} valueStyle={VALUE_STYLE} />
      )}
      <div style={{ marginTop: 6, height: 22, whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' }}>{footer}</div>
    </Card>
  );
  return to ? (
    <Link to={to} style={{ display: 'block', height: '100%', color: 'inherit' }}>
      {card}
    </Link>
  ) : (
    card
  );
}

/** The change against the previous period: an arrow and a percentage, or a dash when nothing came before. */
function Trend({ current, previous, view }: { current: number; previous: number; view: DashboardView }) {
  const { t, i18n } = useTranslation();
  const change = changeOf(current, previous);
  const vs = <Typography.Text type="secondary">{t(`analysis.vsPrevious.${view}`)}</Typography.Text>;
  if (change === null)
    return (
      <Space size={6}>
        <Typography.Text type="secondary" role="img" aria-label={t('analysis.noPrevious')}>
          —
        </Typography.Text>
        {vs}
      </Space>
    );
  const up = change > 0;
  const flat = change === 0;
  return (
    <Space size={6}>
      <Typography.Text strong type={flat ? undefined : up ? 'success' : 'danger'}>
        {!flat && (up ? <ArrowUpOutlined aria-label={t('analysis.up')} /> : <ArrowDownOutlined aria-label={t('analysis.down')} />)}{' '}
        {percent(change, i18n.language)}
      </Typography.Text>
      {vs}
    </Space>
  );
}

export function FigureCards({ call, view }: { call: Call<CardFigures>; view: DashboardView }) {
  const { t, i18n } = useTranslation();
  const { lang } = useParams();
  const { token } = theme.useToken();
  const f = call.data;
  const n = (v: number | undefined) => (f && v !== undefined ? formatNumber(v, i18n.language) : call.failed ? '—' : null);
  const share = (part: number, whole: number, key: string) =>
    whole > 0 ? <Typography.Text type="secondary">{t(key, { percent: percent(part / whole, i18n.language) })}</Typography.Text> : null;
  const soon = expiringSoonWindow(new Date(call.updatedAt || Date.now()));
  const expiringTo = `/${lang}/sim/simCard?expiresAtFrom=${encodeURIComponent(soon.from.toISOString())}&expiresAtTo=${encodeURIComponent(soon.to.toISOString())}`;
  const cards: FigureProps[] = [
    {
      title: t('analysis.cards.total'),
      icon: <CreditCardOutlined />,
      value: n(f?.totalSims),
      footer: <Typography.Text type="secondary">{t('analysis.cards.totalHint')}</Typography.Text>,
    },
    {
      title: t('analysis.cards.active'),
      icon: <ThunderboltOutlined />,
      value: n(f?.activeSims),
      footer: f && share(f.activeSims, f.totalSims, 'analysis.cards.activeShare'),
    },
    {
      title: t('analysis.cards.online'),
      icon: <WifiOutlined />,
      value: n(f?.onlineSims),
      footer: f && share(f.onlineSims, f.activeSims, 'analysis.cards.onlineShare'),
    },
    {
      title: t('analysis.cards.expiring'),
      icon: <AlertOutlined />,
      value: n(f?.expiringSoon),
      to: f ? expiringTo : undefined,
      footer: f && (
        // The whole card is the link: its hint only looks like one.
        <Typography.Text style={{ color: token.colorLink }}>
          {t('analysis.cards.expiringHint', { days: f.expiringSoonDays })} <RightOutlined style={{ fontSize: 10 }} />
        </Typography.Text>
      ),
    },
    {
      title: t('analysis.cards.usage'),
      icon: <CloudDownloadOutlined />,
      value: f ? formatKb(f.usageKb, i18n.language) : n(undefined),
      footer: f && <Trend current={f.usageKb} previous={f.previousUsageKb} view={view} />,
    },
    {
      title: t('analysis.cards.sms'),
      icon: <MessageOutlined />,
      value: n(f?.sms),
      footer: f && <Trend current={f.sms} previous={f.previousSms} view={view} />,
    },
  ];
  return (
    <Row gutter={[16, 16]} role="list" aria-label={t('analysis.cards.label')}>
      {cards.map((c) => (
        <Col key={c.title} xs={24} sm={12} lg={8} xxl={4} role="listitem">
          <Figure {...c} />
        </Col>
      ))}
    </Row>
  );
}

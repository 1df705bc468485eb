/**
 * dashboard/analysis, the page after sign-in (SPEC.md sections 2, 7 and 9): the organisation's SIMs and usage at a
 * glance. One period switch (24 hours, a week, 6 months), kept in the address as ?view=, drives every panel.
 */
import { InboxOutlined, ReloadOutlined } from '@ant-design/icons';
import { Button, Card, Col, Empty, Flex, Grid, Row, Segmented, Space, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { DASHBOARD_VIEWS, dashboardViewOf, type DashboardView } from '../../../common/dashboard';
import { useTimeFormat } from '../../components/date-time';
import { store } from '../../providers/session-store';
import { FigureCards } from './figure-cards';
import { LifecyclePanel } from './lifecycle-panel';
import { RankPanel } from './rank-panel';
import { SmsPanel, UsagePanel } from './usage-panels';
import { useDashboardCall, type CardFigures, type LifecycleCount, type Rank, type SmsUsage, type Statistics } from './use-dashboard';

/**
 * Body heights, so the panels side by side line up, and each panel holds its place while its figures load: a panel
 * never grows when they arrive (the top 10's header and ten rows of 39 px fill 429 px).
 */
const CHART_ROW = 360;
const TABLE_ROW = 432;
/** SMS on a row of its own (below 1600 px): a lower, wider chart. */
const SMS_ALONE = 300;

export function AnalysisPage() {
  const { t } = useTranslation();
  const format = useTimeFormat();
  const wide = Grid.useBreakpoint().xxl ?? false;
  const [params, setParams] = useSearchParams();
  const view = dashboardViewOf(params.get('view'));
  const card = useDashboardCall<CardFigures>('dashboard/card', view);
  const statistics = useDashboardCall<Statistics>('dashboard/statistics', view);
  const rank = useDashboardCall<Rank>('dashboard/rank', view);
  const lifecycle = useDashboardCall<LifecycleCount>('dashboard/lifecycleCount');
  const sms = useDashboardCall<SmsUsage>('sms/usage', view);
  const calls = [card, statistics, rank, lifecycle, sms];
  const choose = (v: DashboardView) =>
    setParams(
      (p) => {
        p.set('view', v);
        return p;
      },
      { replace: true },
    );
  // A new organisation: no SIM at all. Its figures are zeros and its charts would be blank, so one welcome instead.
  const noSims = card.data?.totalSims === 0;
  const name = store.get('username');

  return (
    <Flex vertical gap={16}>
      <Flex justify="space-between" align="flex-end" wrap gap={12}>
        <div>
          <Typography.Title level={3} style={{ margin: 0 }}>
            {t('menu.analysis')}
          </Typography.Title>
          {name && <Typography.Text type="secondary">{t('analysis.welcome', { name })}</Typography.Text>}
        </div>
        <Space wrap size="middle">
          {card.updatedAt > 0 && (
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {t('analysis.asOf', { time: format(card.updatedAt) })}
            </Typography.Text>
          )}
          <Segmented<DashboardView>
            aria-label={t('analysis.period')}
            value={view}
            onChange={choose}
            options={DASHBOARD_VIEWS.map((v) => ({ value: v, label: t(`analysis.view.${v}`) }))}
          />
          <Tooltip title={t('analysis.refresh')}>
            <Button aria-label={t('analysis.refresh')} icon={<ReloadOutlined />} onClick={() => calls.forEach((c) => c.reload())} />
          </Tooltip>
        </Space>
      </Flex>
      <FigureCards call={card} view={view} />
      {noSims ? (
        <Card>
          <Empty
            image={<InboxOutlined style={{ fontSize: 64, color: '#bfbfbf' }} />}
            styles={{ image: { height: 72 } }}
            description={
              <Space direction="vertical" size={4}>
                <Typography.Text strong>{t('analysis.empty.title')}</Typography.Text>
                <Typography.Text type="secondary">{t('analysis.empty.hint')}</Typography.Text>
              </Space>
            }
          />
        </Card>
      ) : (
        <Row gutter={[16, 16]}>
          <Col xs={24} xl={16}>
            <UsagePanel call={statistics} view={view} height={CHART_ROW} />
          </Col>
          <Col xs={24} xl={8}>
            <LifecyclePanel call={lifecycle} height={CHART_ROW} />
          </Col>
          {/* The rank's ICCIDs need the width: side by side with SMS only on wide screens. */}
          <Col xs={24} xxl={14}>
            <RankPanel call={rank} height={TABLE_ROW} />
          </Col>
          <Col xs={24} xxl={10}>
            <SmsPanel call={sms} view={view} height={wide ? TABLE_ROW : SMS_ALONE} />
          </Col>
        </Row>
      )}
    </Flex>
  );
}

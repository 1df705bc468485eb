/**
 * The dashboard's heatmap (SPEC.md section 2, dashboard/heatmap): where the organisation's SIMs were last seen and how
 * much they used in 24 hours, a week or 6 months (?view=), measured in SIMs or in usage (?measure=). The server counts
 * SIMs into cells and countries (GET /dashboard/heatmap); the map itself loads lazily with its data.
 */
import { Alert, Button, Card, Col, Empty, Flex, Row, Segmented, Skeleton, Space, Typography, theme } from 'antd';
import { TextStatistic } from '../../components/text-statistic';
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { DASHBOARD_VIEWS, dashboardViewOf } from '../../../common/dashboard';
import { api, type HttpError } from '../../providers/http';
import { formatKb } from '../../resources/cell';
import { formatMeasure, heatmapOption, MEASURES, type HeatmapData, type Measure } from './heatmap-option';
import { SnapshotNote } from './snapshot-note';
import { TopCountries } from './top-countries';
import { formatNumber } from '../../../common/numbers';

const HeatmapMap = lazy(() => import('./heatmap-map'));
/** Taller on a taller screen, so the map fills 1920 x 1080 as well as 1280 x 800. */
const MAP_HEIGHT = Math.round(Math.min(720, Math.max(480, (typeof window === 'undefined' ? 900 : window.innerHeight) - 400)));

/** The answer for a view: null while it loads; a failure's message, with a retry. */
function useHeatmap(view: string) {
  const [state, setState] = useState<{ data: HeatmapData | null; error: string | null }>({ data: null, error: null });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    setState({ data: null, error: null });
    api<HeatmapData>('GET', `/api/main/dashboard/heatmap?view=${view}`, undefined, { quiet: true }).then(
      (data) => live && setState({ data, error: null }),
      (e: HttpError) => live && setState({ data: null, error: e.message }),
    );
    return () => {
      live = false;
    };
  }, [view, attempt]);
  return { ...state, reload: () => setAttempt((a) => a + 1) };
}

/** Country names in the reader's language; the code itself where the language has none. */
export function useCountryName(lang: string): (code: string) => string {
  return useMemo(() => {
    const names = new Intl.DisplayNames([lang], { type: 'region', fallback: 'code' });
    return (code: string) => {
      try {
        return names.of(code) ?? code;
      } catch {
        return code;
      }
    };
  }, [lang]);
}

export function HeatmapPage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const { token } = theme.useToken();
  const [params, setParams] = useSearchParams();
  const view = dashboardViewOf(params.get('view'));
  const measure: Measure = params.get('measure') === 'usage' ? 'usage' : 'sims';
  const set = (key: string, value: string) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        next.set(key, value);
        return next;
      },
      { replace: true },
    );
  const { data, error, reload } = useHeatmap(view);
  const countryName = useCountryName(lang);

  const option = useMemo(
    () =>
      data &&
      heatmapOption(data, measure, {
        t,
        lang,
        countryName,
        map: 'world-50m',
        colors: {
          country: [token.colorPrimaryBg, token.colorPrimaryBorderHover],
          cell: ['#69b1ff', '#10239e'],
          border: token.colorBorder,
          land: token.colorFillQuaternary,
        },
      }),
    [data, measure, t, lang, countryName, token],
  );

  const empty = data !== null && data.locatedSims === 0;
  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <Flex justify="space-between" align="center" wrap gap="middle">
        <Typography.Title level={3} style={{ margin: 0 }}>
          {t('menu.heatmap')}
        </Typography.Title>
        <Space wrap size="middle">
          <SnapshotNote answer={data} text={(time) => t('heatmap.snapshot', { time })} hint={t('heatmap.snapshotHint')} />
          <Segmented
            aria-label={t('heatmap.measureLabel')}
            value={measure}
            onChange={(v) => set('measure', String(v))}
            options={MEASURES.map((m) => ({ value: m, label: t(`heatmap.measure.${m}`) }))}
          />
          <Segmented
            aria-label={t('heatmap.viewLabel')}
            value={view}
            onChange={(v) => set('view', String(v))}
            options={DASHBOARD_VIEWS.map((v) => ({ value: v, label: t(`heatmap.views.${v}`) }))}
          />
        </Space>
      </Flex>
      {error && <Alert type="error" showIcon message={error} action={<Button onClick={reload}>{t('heatmap.retry')}</Button>} />}
      {!error && (
        <Row gutter={[16, 16]}>
          <Col xs={24} sm={8}>
            <Card>
              {data ? (
                <TextStatistic title={t('heatmap.located')} value={formatNumber(data.locatedSims, lang)} suffix={`/ ${formatNumber(data.totalSims, lang)}`} />
              ) : (
                <Skeleton active paragraph={false} />
              )}
            </Card>
          </Col>
          <Col xs={24} sm={8}>
            <Card>
              {data ? <TextStatistic title={t(`heatmap.usageIn.${view}`)} value={formatKb(data.usageKb, lang)} /> : <Skeleton active paragraph={false} />}
            </Card>
          </Col>
          <Col xs={24} sm={8}>
            <Card>
              {data ? (
                <TextStatistic title={t('heatmap.countryCount')} value={formatNumber(data.countries.length, lang)} />
              ) : (
                <Skeleton active paragraph={false} />
              )}
            </Card>
          </Col>
          <Col xs={24} xl={17} xxl={18}>
            <Card
              title={t(`heatmap.mapTitle.${measure}`)}
              extra={<Typography.Text type="secondary">{t('heatmap.hint')}</Typography.Text>}
              styles={{ body: { padding: 8 } }}
            >
              {!data || !option ? (
                <Skeleton.Node active style={{ width: '100%', height: MAP_HEIGHT }} />
              ) : empty ? (
                <Empty style={{ height: MAP_HEIGHT - 48, alignContent: 'center' }} description={t('heatmap.empty')} />
              ) : (
                <Suspense fallback={<Skeleton.Node active style={{ width: '100%', height: MAP_HEIGHT }} />}>
                  <HeatmapMap option={option} height={MAP_HEIGHT} label={t(`heatmap.mapTitle.${measure}`)} />
                </Suspense>
              )}
            </Card>
          </Col>
          <Col xs={24} xl={7} xxl={6}>
            <Card title={t('heatmap.topCountries')} styles={{ body: { paddingTop: 8 } }}>
              {!data ? (
                <Skeleton active paragraph={{ rows: 8 }} />
              ) : (
                <>
                  <TopCountries countries={data.countries} measure={measure} countryName={countryName} format={(v) => formatMeasure(v, measure, lang)} />
                  {data.totalSims > data.locatedSims && (
                    <Typography.Paragraph type="secondary" style={{ margin: '12px 0 0' }}>
                      {t('heatmap.unlocated', { count: data.totalSims - data.locatedSims, n: formatNumber(data.totalSims - data.locatedSims, lang) })}
                    </Typography.Paragraph>
                  )}
                </>
              )}
            </Card>
          </Col>
        </Row>
      )}
    </Space>
  );
}

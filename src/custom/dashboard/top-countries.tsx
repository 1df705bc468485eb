/** The heatmap's side list: the countries with the most SIMs or usage, each with its share of the largest. */
import { Empty, Flex, Progress, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { valueOf, type HeatmapCountry, type Measure } from './heatmap-option';

const SHOWN = 10;

export interface TopCountriesProps {
  countries: HeatmapCountry[];
  measure: Measure;
  countryName: (code: string) => string;
  format: (value: number) => string;
}

export function TopCountries({ countries, measure, countryName, format }: TopCountriesProps) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const top = [...countries].sort((a, b) => valueOf(b, measure) - valueOf(a, measure) || b.sims - a.sims).slice(0, SHOWN);
  const max = Math.max(1, ...top.map((c) => valueOf(c, measure)));
  if (top.length === 0) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('heatmap.noCountries')} />;
  return (
    <ol aria-label={t('heatmap.topCountries')} style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      {top.map((c, i) => (
        <li key={c.country} style={{ padding: '8px 0' }}>
          <Flex justify="space-between" gap="small">
            <Typography.Text ellipsis>
              <Typography.Text type="secondary">{i + 1}. </Typography.Text>
              {countryName(c.country)}
            </Typography.Text>
            <Typography.Text strong style={{ whiteSpace: 'nowrap' }}>
              {format(valueOf(c, measure))}
            </Typography.Text>
          </Flex>
          <Progress
            aria-label={countryName(c.country)}
            percent={(valueOf(c, measure) / max) * 100}
            status="normal"
            strokeColor={token.colorPrimary}
            showInfo={false}
            size="small"
            style={{ margin: 0 }}
          />
        </li>
      ))}
    </ol>
  );
}

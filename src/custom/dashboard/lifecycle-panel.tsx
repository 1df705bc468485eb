/** SIMs by lifecycle state: a donut and its legend of counts, each state opening the SIM list filtered to it. */
import { RightOutlined } from '@ant-design/icons';
import { Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { percent } from './format';
import { DonutChart } from '../../components/svg-chart/donut-chart';
import { Panel } from './panel';
import type { Call, LifecycleCount } from './use-dashboard';
import { formatNumber } from '../../../common/numbers';

/** One colour per state, in the spirit of the SIM list's tags (green active, blue pre-activated, orange paused…). */
const COLORS: Record<string, string> = {
  inactive: '#bfbfbf',
  pre_activated: '#2f54eb',
  active: '#52c41a',
  paused: '#faad14',
  expired: '#f5222d',
  terminated: '#595959',
};

export function LifecyclePanel({ call, height }: { call: Call<LifecycleCount>; height: number }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { lang } = useParams();
  const listOf = (status: string) => `/${lang}/sim/simCard?status=${encodeURIComponent(status)}`;
  const donut = 168;
  return (
    <Panel
      title={t('analysis.lifecycle.title')}
      call={call}
      height={height}
      isEmpty={(d) => d.items.every((i) => i.count === 0)}
      emptyText={t('analysis.lifecycle.empty')}
    >
      {(d) => {
        const total = d.items.reduce((a, i) => a + i.count, 0);
        const name = (s: string) => t(`sims.enum.status.${s}`);
        return (
          <Flex vertical gap={8}>
            <DonutChart
              label={t('analysis.lifecycle.title')}
              height={donut}
              centre={{ value: formatNumber(total, i18n.language), label: t('analysis.lifecycle.total') }}
              items={d.items.map((i) => ({ key: i.status, name: name(i.status), value: i.count, color: COLORS[i.status] }))}
              describe={(item) => ({
                lines: [
                  {
                    color: item.color,
                    name: item.name,
                    value: formatNumber(item.value, i18n.language),
                    note: `(${percent(item.value / total, i18n.language)})`,
                  },
                ],
              })}
              onSelect={(item) => void navigate(listOf(item.key))}
            />
            <nav aria-label={t('analysis.lifecycle.legend')}>
              {d.items.map((i) => (
                // Named by what it shows ("Paused 3.2% 1,024"): a name that differs from the visible text fails WCAG 2.5.3.
                <Link
                  key={i.status}
                  to={listOf(i.status)}
                  title={t('analysis.lifecycle.open', { state: name(i.status), n: formatNumber(i.count, i18n.language) })}
                  style={{ color: 'inherit' }}
                >
                  <Flex align="center" gap={8} style={{ padding: '4px 6px', borderRadius: 6 }}>
                    <span style={{ width: 10, height: 10, borderRadius: 5, background: COLORS[i.status], flex: 'none' }} />
                    <Typography.Text style={{ flex: 1 }} ellipsis>
                      {name(i.status)}
                    </Typography.Text>
                    <Typography.Text type="secondary" style={{ width: 56, textAlign: 'right' }}>
                      {total ? percent(i.count / total, i18n.language, 1) : ''}
                    </Typography.Text>
                    <Typography.Text strong style={{ minWidth: 56, textAlign: 'right' }}>
                      {formatNumber(i.count, i18n.language)}
                    </Typography.Text>
                    <RightOutlined aria-hidden style={{ fontSize: 10, color: '#bfbfbf' }} />
                  </Flex>
                </Link>
              ))}
            </nav>
          </Flex>
        );
      }}
    </Panel>
  );
}

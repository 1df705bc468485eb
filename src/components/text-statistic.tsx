/**
 * antd's Statistic regroups a value that looks like a bare number with its own "," separator: a Spanish "1089"
 * (CLDR leaves four digits ungrouped) became "1,089" beside a "2000". Values here are already written in the
 * interface language (formatNumber, formatKb), so they are shown exactly as given.
 */
import { Statistic, type StatisticProps } from 'antd';

export function TextStatistic({ value, ...props }: Omit<StatisticProps, 'value' | 'formatter'> & { value: string }) {
  return <Statistic {...props} value={value} formatter={() => value} />;
}

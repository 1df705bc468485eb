/** A dashboard panel: its card, a skeleton while its call runs, a retry after a failure, a friendly empty state. */
import { ReloadOutlined } from '@ant-design/icons';
import { Button, Card, Empty, Result, Skeleton } from 'antd';
import { type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Call } from './use-dashboard';

interface PanelProps<T> {
  title: ReactNode;
  extra?: ReactNode;
  call: Call<T>;
  /** Whether an answer has nothing to draw (a new organisation, a quiet period). */
  isEmpty?: (data: T) => boolean;
  emptyText: string;
  /** The height of the panel's body, so panels side by side line up whatever their state. */
  height: number;
  children: (data: T) => ReactNode;
}

export function Panel<T>({ title, extra, call, isEmpty, emptyText, height, children }: PanelProps<T>) {
  const { t } = useTranslation();
  const center = { minHeight: height, display: 'flex', flexDirection: 'column', justifyContent: 'center' } as const;
  let body: ReactNode;
  if (call.failed && !call.data)
    body = (
      <div style={center}>
        <Result
          status="warning"
          title={t('analysis.loadFailed')}
          extra={
            <Button icon={<ReloadOutlined />} onClick={call.reload}>
              {t('analysis.retry')}
            </Button>
          }
        />
      </div>
    );
  else if (!call.data) body = <Skeleton active paragraph={{ rows: Math.max(3, Math.floor(height / 40)) }} style={{ minHeight: height }} />;
  else if (isEmpty?.(call.data))
    body = (
      <div style={center}>
        <Empty description={emptyText} />
      </div>
    );
  else body = <div style={{ minHeight: height }}>{children(call.data)}</div>;
  return (
    <Card title={title} extra={extra} style={{ height: '100%' }}>
      {body}
    </Card>
  );
}

/**
 * A SIM's diagnose report (SPEC.md section 7): the server's checks, each passed, warned or failed with its reason in
 * the interface language, the verdict, and the same report as a PDF.
 */
import { CheckCircleFilled, CloseCircleFilled, ExclamationCircleFilled, FilePdfOutlined } from '@ant-design/icons';
import { Alert, Button, Card, List, Space, Tag, theme, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DateTime } from '../../components/date-time';
import { download, saveFile } from '../../providers/http';
import { RefreshButton, TabFrame } from './tab-frame';
import { useSimData } from './use-sim-data';

type Result = 'pass' | 'warn' | 'fail';
interface Report {
  iccid: string;
  at: string;
  verdict: Result;
  checks: Array<{ key: string; title: string; result: Result; message: string; at?: string }>;
}

const LOOK: Record<Result, { color: string; alert: 'success' | 'warning' | 'error'; icon: typeof CheckCircleFilled }> = {
  pass: { color: 'green', alert: 'success', icon: CheckCircleFilled },
  warn: { color: 'orange', alert: 'warning', icon: ExclamationCircleFilled },
  fail: { color: 'red', alert: 'error', icon: CloseCircleFilled },
};

export function DiagnoseTab({ iccid }: { iccid: string }) {
  const { t } = useTranslation();
  const path = `/api/main/cube/sims/diagnose/${encodeURIComponent(iccid)}`;
  const state = useSimData<Report>(path);
  const { token } = theme.useToken();
  const iconColor: Record<Result, string> = { pass: token.colorSuccess, warn: token.colorWarning, fail: token.colorError };
  const [busy, setBusy] = useState(false);
  const pdf = async () => {
    setBusy(true);
    try {
      saveFile(await download('GET', `${path}/pdf`), `diagnose-${iccid}.pdf`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <TabFrame state={state}>
      {(r) => (
        <Card
          size="small"
          title={
            <Space size="small">
              {t('simDetail.diagnose.checkedAt')}
              <Typography.Text type="secondary">
                <DateTime value={r.at} />
              </Typography.Text>
            </Space>
          }
          extra={
            <Space wrap>
              <RefreshButton onClick={state.reload} loading={state.loading} />
              <Button type="primary" icon={<FilePdfOutlined />} loading={busy} onClick={() => void pdf()}>
                {t('simDetail.diagnose.pdf')}
              </Button>
            </Space>
          }
        >
          <Alert type={LOOK[r.verdict].alert} showIcon message={t(`simDetail.diagnose.verdict.${r.verdict}`)} style={{ marginBottom: 8 }} />
          <List
            itemLayout="horizontal"
            dataSource={r.checks}
            renderItem={(c) => {
              const Icon = LOOK[c.result].icon;
              return (
                <List.Item>
                  <List.Item.Meta
                    avatar={<Icon style={{ fontSize: 20, color: iconColor[c.result] }} aria-hidden />}
                    title={
                      <Space size="small">
                        {c.title}
                        <Tag color={LOOK[c.result].color}>{t(`simDetail.diagnose.results.${c.result}`)}</Tag>
                      </Space>
                    }
                    description={
                      <Space direction="vertical" size={0}>
                        <span>{c.message}</span>
                        {c.at && (
                          <Typography.Text type="secondary">
                            <DateTime value={c.at} />
                          </Typography.Text>
                        )}
                      </Space>
                    }
                  />
                </List.Item>
              );
            }}
          />
        </Card>
      )}
    </TabFrame>
  );
}

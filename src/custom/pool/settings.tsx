/**
 * A shared pool's settings: what the customer may change (name, overage policy, opt-in mode), for an
 * administrator (PUT /api/pool/shared_pool/cube/pools/{id}/settings, each change an event); anyone else reads them.
 * The activation rule is set with the pool; "10th" is shown as not supported.
 */
import { Alert, App, Button, Card, Form, Input, Radio, Skeleton, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type HttpError } from '../../providers/http';
import { currentAbility } from '../../shell/ability';
import { usePoolTexts } from './texts';

interface Settings {
  id: string;
  name: string;
  overagePolicy: 'no_limit' | 'stop_overage_sims';
  optInMode: 'automatic' | 'manual';
  activationRule: 'standard' | 'tenth' | 'pro_rata';
  activationRuleSupported: boolean;
}

export function PoolSettings({ poolId, onSaved }: { poolId: string; onSaved: () => void }) {
  return usePoolTexts() ? <SettingsForm poolId={poolId} onSaved={onSaved} /> : <Skeleton active />;
}

function SettingsForm({ poolId, onSaved }: { poolId: string; onSaved: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<Pick<Settings, 'name' | 'overagePolicy' | 'optInMode'>>();
  const [settings, setSettings] = useState<Settings | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const url = `/api/pool/shared_pool/cube/pools/${encodeURIComponent(poolId)}/settings`;
  const mayChange = currentAbility().can('settings', 'shared-pool-cube');

  useEffect(() => {
    let live = true;
    api<Settings>('GET', url, undefined, { quiet: true }).then(
      (s) => live && setSettings(s),
      (e: HttpError) => live && setProblem(e.message),
    );
    return () => void (live = false);
  }, [url]);

  if (!settings) return problem ? <Alert type="error" showIcon message={problem} /> : <Skeleton active />;

  const save = async (values: Pick<Settings, 'name' | 'overagePolicy' | 'optInMode'>) => {
    const changed = Object.fromEntries(Object.entries(values).filter(([k, v]) => settings[k as keyof Settings] !== v));
    if (!Object.keys(changed).length) return;
    setSaving(true);
    setProblem(null);
    try {
      const next = await api<Settings>('PUT', url, changed, { quiet: true });
      setSettings(next);
      form.setFieldsValue({ name: next.name, overagePolicy: next.overagePolicy, optInMode: next.optInMode });
      void message.success(t('poolDash.settings.saved'));
      onSaved();
    } catch (e) {
      setProblem((e as HttpError).message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card size="small" title={t('poolDash.settings.title')}>
      {!mayChange && <Alert style={{ marginBottom: 16 }} type="info" showIcon message={t('poolDash.settings.adminOnly')} />}
      {problem && <Alert style={{ marginBottom: 16 }} type="error" showIcon message={problem} role="alert" />}
      <Form
        form={form}
        layout="vertical"
        style={{ maxWidth: 640 }}
        disabled={!mayChange || saving}
        initialValues={{ name: settings.name, overagePolicy: settings.overagePolicy, optInMode: settings.optInMode }}
        onFinish={(v) => void save(v)}
      >
        <Form.Item
          name="name"
          label={t('pools.fields.name')}
          rules={[
            { required: true, whitespace: true, message: t('poolDash.settings.nameRequired') },
            { max: 100, message: t('poolDash.settings.nameMax', { max: 100 }) },
          ]}
        >
          <Input />
        </Form.Item>
        <Form.Item name="overagePolicy" label={t('pools.fields.overagePolicy')} extra={t('poolDash.settings.overageHelp')}>
          <Radio.Group options={(['no_limit', 'stop_overage_sims'] as const).map((v) => ({ value: v, label: t(`pools.enum.overagePolicy.${v}`) }))} />
        </Form.Item>
        <Form.Item name="optInMode" label={t('pools.fields.optInMode')} extra={t('poolDash.settings.optInHelp')}>
          <Radio.Group options={(['automatic', 'manual'] as const).map((v) => ({ value: v, label: t(`pools.enum.optInMode.${v}`) }))} />
        </Form.Item>
        <Form.Item label={t('pools.fields.activationRule')} extra={t('poolDash.settings.ruleHelp')}>
          <Typography.Text>{t(`pools.enum.activationRule.${settings.activationRule}`)}</Typography.Text>
          {!settings.activationRuleSupported && <Alert style={{ marginTop: 8 }} type="warning" showIcon message={t('poolDash.settings.notSupported')} />}
        </Form.Item>
        {mayChange && (
          <Button type="primary" htmlType="submit" loading={saving}>
            {t('poolDash.settings.save')}
          </Button>
        )}
      </Form>
    </Card>
  );
}

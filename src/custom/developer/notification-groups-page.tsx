/**
 * Settings → Notifications (GET, POST and PUT /rest/subscribe/group): who receives which of the organisation's
 * notifications, by e-mail or by SMS (SPEC.md's SMS variant). Administrators only (the permission file's subscription).
 */
import { PlusOutlined } from '@ant-design/icons';
import { Alert, App, Button, Card, Checkbox, Empty, Form, Input, Modal, Select, Skeleton, Space, Switch, Table, Tabs, Tag, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RECIPIENTS_MAX, type SubscriptionChannel } from '../../../common/subscriptions';
import { LANGUAGES } from '../../../common/limits';
import { api } from '../../providers/http';
import { currentAbility } from '../../shell/ability';
import { useNotificationGroupsTexts } from './texts';

interface Group {
  id: string;
  channel: SubscriptionChannel;
  name: string;
  notifications: string[];
  recipients: string[];
  enabled: boolean;
  language: string;
}
interface Groups {
  items: Group[];
  kinds: string[];
}
interface FormValues {
  name: string;
  notifications: string[];
  recipients: string;
  enabled: boolean;
  language: string;
}

const LANGUAGE_NAMES: Record<string, string> = { 'en-US': 'English', 'zh-CN': '简体中文', 'zh-TW': '繁體中文', 'es-ES': 'Español' };

export function NotificationGroupsPage() {
  return useNotificationGroupsTexts() ? <Groups /> : <Skeleton active />;
}

function Groups() {
  const { t, i18n } = useTranslation();
  const { message } = App.useApp();
  const [channel, setChannel] = useState<SubscriptionChannel>('email');
  const [data, setData] = useState<Groups | null>(null);
  const [editing, setEditing] = useState<Group | 'new' | null>(null);
  const [busy, setBusy] = useState(false);
  const [form] = Form.useForm<FormValues>();
  const ability = currentAbility();
  const load = useCallback(() => api<Groups>('GET', '/api/job/rest/subscribe/group').then(setData, () => undefined), []);
  useEffect(() => void load(), [load]);

  const open = (g: Group | 'new') => {
    setEditing(g);
    form.setFieldsValue(
      g === 'new'
        ? { name: '', notifications: ['task_issues'], recipients: '', enabled: true, language: i18n.language }
        : { name: g.name, notifications: g.notifications, recipients: g.recipients.join('\n'), enabled: g.enabled, language: g.language },
    );
  };
  const save = async () => {
    const v = await form.validateFields();
    const body = {
      name: v.name,
      notifications: v.notifications,
      recipients: v.recipients
        .split(/\r?\n/)
        .map((r) => r.trim())
        .filter(Boolean),
      enabled: v.enabled,
      language: v.language,
    };
    setBusy(true);
    try {
      if (editing === 'new') await api('POST', '/api/job/rest/subscribe/group', { channel, ...body });
      else if (editing) await api('PUT', '/api/job/rest/subscribe/group', { id: editing.id, ...body });
      void message.success(t('notificationGroups.saved'));
      setEditing(null);
      await load();
    } catch {
      // The HTTP helper shows the server's reason, naming the field.
    } finally {
      setBusy(false);
    }
  };
  const toggle = async (g: Group, enabled: boolean) => {
    await api('PUT', '/api/job/rest/subscribe/group', { id: g.id, enabled }).then(load, () => undefined);
  };

  const rows = (data?.items ?? []).filter((g) => g.channel === channel);
  const table = (
    <Table<Group>
      rowKey="id"
      size="middle"
      loading={!data}
      dataSource={rows}
      pagination={false}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('notificationGroups.empty')} /> }}
      columns={[
        { key: 'name', title: t('notificationGroups.name'), dataIndex: 'name' },
        {
          key: 'notifications',
          title: t('notificationGroups.notifications'),
          render: (_, g) => g.notifications.map((k) => <Tag key={k}>{t(`notificationGroups.kinds.${k}`)}</Tag>),
        },
        { key: 'recipients', title: t('notificationGroups.recipients'), render: (_, g) => g.recipients.join(', ') },
        { key: 'language', title: t('notificationGroups.language'), render: (_, g) => LANGUAGE_NAMES[g.language] ?? g.language },
        {
          key: 'enabled',
          title: t('notificationGroups.enabled'),
          render: (_, g) => (
            <Switch
              checked={g.enabled}
              disabled={!ability.can('update', 'subscription')}
              aria-label={`${t('notificationGroups.enabled')} ${g.name}`}
              onChange={(on) => void toggle(g, on)}
            />
          ),
        },
        {
          key: 'actions',
          title: '',
          render: (_, g) =>
            ability.can('update', 'subscription') && (
              <Button type="link" size="small" onClick={() => open(g)} aria-label={`${t('notificationGroups.edit')} ${g.name}`}>
                {t('notificationGroups.edit')}
              </Button>
            ),
        },
      ]}
    />
  );
  return (
    <>
      <Typography.Title level={3}>{t('notificationGroups.title')}</Typography.Title>
      <Card>
        <Space direction="vertical" style={{ width: '100%' }} size="middle">
          <Space style={{ justifyContent: 'space-between', width: '100%' }} wrap>
            <Typography.Text type="secondary">{t('notificationGroups.intro', { max: RECIPIENTS_MAX })}</Typography.Text>
            {/* Outside the tab list: a button among the tabs is not a tab (it adds to the channel shown). */}
            {ability.can('create', 'subscription') && (
              <Button type="primary" icon={<PlusOutlined />} onClick={() => open('new')}>
                {t('notificationGroups.add')}
              </Button>
            )}
          </Space>
          <Tabs
            activeKey={channel}
            onChange={(k) => setChannel(k as SubscriptionChannel)}
            items={[
              { key: 'email', label: t('notificationGroups.email'), children: table },
              {
                key: 'sms',
                label: t('notificationGroups.sms'),
                children: (
                  <Space direction="vertical" style={{ width: '100%' }}>
                    <Alert type="info" showIcon message={t('notificationGroups.smsNote')} />
                    {table}
                  </Space>
                ),
              },
            ]}
          />
        </Space>
      </Card>
      <Modal
        open={editing !== null}
        title={editing === 'new' ? t('notificationGroups.add') : t('notificationGroups.edit')}
        okText={t('notificationGroups.save')}
        cancelText={t('notificationGroups.cancel')}
        confirmLoading={busy}
        onOk={() => void save()}
        onCancel={() => setEditing(null)}
        destroyOnHidden
      >
        <Form form={form} layout="vertical" requiredMark>
          <Form.Item name="name" label={t('notificationGroups.name')} rules={[{ required: true, whitespace: true, max: 50 }]}>
            <Input count={{ show: true, max: 50 }} />
          </Form.Item>
          <Form.Item name="notifications" label={t('notificationGroups.notifications')} rules={[{ required: true, type: 'array', min: 1 }]}>
            <Checkbox.Group options={(data?.kinds ?? []).map((k) => ({ value: k, label: t(`notificationGroups.kinds.${k}`) }))} />
          </Form.Item>
          <Form.Item
            name="recipients"
            label={t('notificationGroups.recipients')}
            extra={t(channel === 'email' ? 'notificationGroups.recipientsEmailHelp' : 'notificationGroups.recipientsSmsHelp')}
            rules={[{ required: true, whitespace: true }]}
          >
            <Input.TextArea rows={4} />
          </Form.Item>
          <Form.Item name="language" label={t('notificationGroups.language')}>
            <Select options={LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_NAMES[l] }))} />
          </Form.Item>
          <Form.Item name="enabled" label={t('notificationGroups.enabled')} valuePropName="checked">
            <Switch />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}

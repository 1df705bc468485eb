import { BankOutlined, DownOutlined, PlusOutlined } from '@ant-design/icons';
import { App, Button, Dropdown, Empty, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { LIMITS } from '../../common/limits';
import { isAdminRole } from '../../common/roles';
import { api } from '../providers/http';
import { currentRole, store, type SessionAnswer } from '../providers/session-store';
import { useSessionValue } from '../providers/use-session-value';

type Membership = SessionAnswer['roles'][number];

function memberships(): Membership[] {
  try {
    return JSON.parse(store.get('roles') ?? '[]') as Membership[];
  } catch {
    return [];
  }
}

/** Switch to another organisation: new partnerCode, its rules from the server, then the data reloads. */
export async function switchOrganisation(m: Membership): Promise<void> {
  store.set('partnerCode', m.code);
  store.set('enterpriseCode', m.code);
  store.set('enterpriseName', m.name);
  store.set('tenantId', m.code);
  const r = await api<{ permissions: unknown[] }>('PUT', '/api/identity/permission/info/cube/permission/refresh');
  store.set('permissions', JSON.stringify(r.permissions));
}

/** SPEC.md section 2: up to 10 other organisations, More leading to orgs, a message when there is none, New organisation for admins. */
export function OrgSwitcher() {
  const { t } = useTranslation();
  const { lang } = useParams();
  const navigate = useNavigate();
  const { message } = App.useApp();
  // Held here so that the button below the menu (New organisation) closes it too, as a menu item does.
  const [open, setOpen] = useState(false);
  // Re-render when the organisation list changes (a new organisation, a membership gained or lost, pushed live).
  useSessionValue('roles');
  const current = store.get('partnerCode');
  const others = memberships().filter((m) => m.code !== current && !m.pending_invitation);
  const shown = others.slice(0, LIMITS.orgSwitcherCount);
  const admin = isAdminRole(currentRole() ?? '');

  const items = [
    ...shown.map((m) => ({ key: m.code, label: m.name })),
    ...(others.length > shown.length ? [{ key: '__more', label: t('shell.moreOrgs') }] : []),
    ...(others.length === 0
      ? [{ key: '__none', disabled: true, label: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('shell.noOtherOrgs')} /> }]
      : []),
  ];

  const onClick = async ({ key }: { key: string }) => {
    setOpen(false);
    if (key === '__more') return navigate(`/${lang}/orgs`);
    const m = others.find((o) => o.code === key);
    if (!m) return;
    await switchOrganisation(m);
    void message.success(t('shell.switched', { name: m.name }));
    navigate(`/${lang}/dashboard/analysis`);
    window.location.reload();
  };

  return (
    <Dropdown
      trigger={['click']}
      // Opening moves the focus into the list, where the arrow keys walk the organisations (keyboard alone).
      autoFocus
      open={open}
      onOpenChange={setOpen}
      menu={{ items, onClick: (e) => void onClick(e) }}
      popupRender={(menu) => (
        <div
          tabIndex={-1}
          // The dropdown focuses this box on opening: the list inside takes it.
          onFocus={(e) => {
            if (e.target === e.currentTarget) e.currentTarget.querySelector<HTMLElement>('[role="menu"]')?.focus();
          }}
          // Tab goes from the list to the New organisation button and Shift+Tab back, instead of closing the dropdown.
          onKeyDown={(e) => {
            const onButton = (e.target as HTMLElement).closest('button') !== null;
            if (e.key === 'Tab' && admin && (onButton ? e.shiftKey : !e.shiftKey)) e.stopPropagation();
          }}
          style={{ background: '#fff', borderRadius: 8, boxShadow: '0 6px 16px rgba(0,0,0,.12)', minWidth: 240 }}
        >
          {menu}
          {admin && (
            <div style={{ padding: 8, borderTop: '1px solid #f0f0f0' }}>
              <Button
                block
                icon={<PlusOutlined />}
                onClick={() => {
                  setOpen(false);
                  navigate(`/${lang}/orgscreate`);
                }}
              >
                {t('shell.newOrg')}
              </Button>
            </div>
          )}
        </div>
      )}
    >
      {/* The name holds the visible text (WCAG 2.5.3, label in name): "Organisation: Demo Logistics GmbH". */}
      <Button type="text" aria-label={t('shell.organisationOf', { name: store.get('enterpriseName') || current })}>
        <Space>
          <BankOutlined />
          <strong>{store.get('enterpriseName') || current}</strong>
          <DownOutlined />
        </Space>
      </Button>
    </Dropdown>
  );
}

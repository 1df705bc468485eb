import { ApiOutlined, AppstoreOutlined, BarChartOutlined, CreditCardOutlined, DashboardOutlined, MessageOutlined, ProfileOutlined, SettingOutlined, ShareAltOutlined } from '@ant-design/icons';
import { Menu, type MenuProps } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams } from 'react-router';
import { useBrand } from '../providers/brand';
import { canRead } from './ability';
import { SCREENS, screenOf, type ScreenDef } from './routes';

const GROUP_ICONS: Record<NonNullable<ScreenDef['group']>, ReactNode> = {
  dashboard: <DashboardOutlined aria-hidden />,
  sim: <AppstoreOutlined aria-hidden />,
  finance: <CreditCardOutlined aria-hidden />,
  message: <MessageOutlined aria-hidden />,
  autoflow: <ShareAltOutlined aria-hidden />,
  cdr: <BarChartOutlined aria-hidden />,
  developer: <ApiOutlined aria-hidden />,
  settings: <SettingOutlined aria-hidden />,
  tasks: <ProfileOutlined aria-hidden />,
};

/** Items the role may read, grouped; a group with one item is a plain item. */
export function useMenuItems(): MenuProps['items'] {
  const { t } = useTranslation();
  const brand = useBrand();
  const visible = SCREENS.filter((s) => s.group && canRead(s.subject) && !(s.feature === 'reports' && !brand.reportsEnabled));
  const groups = [...new Set(visible.map((s) => s.group!))];
  return groups.map((g) => {
    const items = visible.filter((s) => s.group === g);
    if (items.length === 1) return { key: items[0].key, icon: GROUP_ICONS[g], label: t(`menu.${items[0].key}`) };
    return { key: g, icon: GROUP_ICONS[g], label: t(`menu.group.${g}`), children: items.map((s) => ({ key: s.key, label: t(`menu.${s.key}`) })) };
  });
}

/** The side menu: one top-level group open at a time; child screens highlight their parent item. */
export function SideMenu({ collapsed }: { collapsed: boolean }) {
  const items = useMenuItems();
  const navigate = useNavigate();
  const { lang } = useParams();
  const { pathname } = useLocation();
  const screen = screenOf(pathname);
  const selected = screen?.highlights ?? screen?.key;
  const group = SCREENS.find((s) => s.key === selected)?.group;
  const [openKeys, setOpenKeys] = useState<string[]>(group ? [group] : []);
  return (
    <Menu
      mode="inline"
      items={items}
      selectedKeys={selected ? [selected] : []}
      openKeys={collapsed ? undefined : openKeys}
      onOpenChange={(keys) => setOpenKeys(keys.length ? [keys[keys.length - 1]] : [])}
      onClick={({ key }) => {
        const target = SCREENS.find((s) => s.key === key);
        if (target) navigate(`/${lang}/${target.path}`);
      }}
      style={{ borderInlineEnd: 0 }}
    />
  );
}

import {
  ApiOutlined,
  AppstoreOutlined,
  BarChartOutlined,
  CreditCardOutlined,
  DashboardOutlined,
  MessageOutlined,
  ProfileOutlined,
  SettingOutlined,
  ShareAltOutlined,
} from '@ant-design/icons';
import { Menu, type MenuProps } from 'antd';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams } from 'react-router';
import { useBrand } from '../providers/brand';
import { schemaPath, useSchemaCatalog } from '../resources/schema-catalog';
import { canRead } from './ability';
import { useHasPools } from './features';
import { menuTree } from './menu-tree';
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

interface MenuEntry {
  key: string;
  group: NonNullable<ScreenDef['group']>;
  label: string;
  path: string;
}

/** Every menu entry the role may read: SPEC.md's screens, then the resources schemas add (docs/schemas.md). */
function useMenuEntries(): MenuEntry[] {
  const { t } = useTranslation();
  const brand = useBrand();
  const { items: schemas } = useSchemaCatalog();
  // Hidden until known: an entry that appears is better than one that vanishes.
  const hasPools = useHasPools() === true;
  const screens = SCREENS.filter(
    (s) => s.group && canRead(s.subject) && !(s.feature === 'reports' && !brand.reportsEnabled) && !(s.feature === 'pools' && !hasPools),
  ).map((s) => ({
    key: s.key,
    group: s.group!,
    label: t(`menu.${s.key}`),
    path: s.path,
  }));
  const added = schemas
    .filter((r) => r['x-admin'].menu && canRead(r['x-admin'].subject))
    .map((r) => ({
      key: schemaPath(r['x-admin'].resource),
      group: r['x-admin'].menu!.group,
      label: t(`${r['x-admin'].i18n}.title`),
      path: schemaPath(r['x-admin'].resource),
    }));
  return [...screens, ...added];
}

/** Items the role may read, grouped in the groups' order; a group with one item is a plain item. */
export function useMenuItems(): MenuProps['items'] {
  const { t } = useTranslation();
  const visible = useMenuEntries();
  return menuTree(visible, (g) => t(`menu.group.${g}`)).map(({ group, ...node }) => ({ ...node, icon: GROUP_ICONS[group] }));
}

/** The side menu: one top-level group open at a time; child screens highlight their parent item. */
export function SideMenu({ collapsed }: { collapsed: boolean }) {
  const items = useMenuItems();
  const entries = useMenuEntries();
  const navigate = useNavigate();
  const { lang } = useParams();
  const { pathname } = useLocation();
  const screen = screenOf(pathname);
  // A schema resource's pages (r/<name>/…) highlight its entry.
  const added = /^\/[^/]+\/(r\/[^/]+)/.exec(pathname)?.[1];
  const selected = added ?? screen?.highlights ?? screen?.key;
  const group = entries.find((s) => s.key === selected)?.group ?? SCREENS.find((s) => s.key === selected)?.group;
  const [openKeys, setOpenKeys] = useState<string[]>(group ? [group] : []);
  // Arriving at another group's page (a link, the catalog loading late) opens that group.
  useEffect(() => {
    if (group) setOpenKeys((open) => (open.includes(group) ? open : [group]));
  }, [group]);
  return (
    <Menu
      mode="inline"
      items={items}
      selectedKeys={selected ? [selected] : []}
      openKeys={collapsed ? undefined : openKeys}
      onOpenChange={(keys) => setOpenKeys(keys.length ? [keys[keys.length - 1]] : [])}
      onClick={({ key }) => {
        const target = entries.find((s) => s.key === key);
        if (target) navigate(`/${lang}/${target.path}`);
      }}
      style={{ borderInlineEnd: 0 }}
    />
  );
}

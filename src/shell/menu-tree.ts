/**
 * The side menu's shape: entries grouped in the groups' own order (common/resources.ts MENU_GROUPS), so an entry a
 * schema adds sits where its group belongs (Settings before Task center) even when it is the group's only entry;
 * a group with one entry is that entry, drawn with the group's icon.
 */
import { MENU_GROUPS, type MenuGroup } from '../../common/resources';

export interface MenuEntryOf {
  key: string;
  group: MenuGroup;
  label: string;
}

export type MenuNode = { key: string; group: MenuGroup; label: string; children?: Array<{ key: string; label: string }> };

export function menuTree(entries: MenuEntryOf[], groupLabel: (g: MenuGroup) => string): MenuNode[] {
  return MENU_GROUPS.filter((g) => entries.some((e) => e.group === g)).map((g) => {
    const items = entries.filter((e) => e.group === g);
    if (items.length === 1) return { key: items[0].key, group: g, label: items[0].label };
    return { key: g, group: g, label: groupLabel(g), children: items.map((e) => ({ key: e.key, label: e.label })) };
  });
}

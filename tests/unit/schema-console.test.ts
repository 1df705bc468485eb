/**
 * Two things a resource added by a schema alone met in the console: its menu entry's place
 * and the edit form emptying a field.
 */
import { describe, expect, it } from 'vitest';
import { editValues } from '../../src/resources/edit-values';
import { menuTree } from '../../src/shell/menu-tree';

describe('the side menu', () => {
  const label = (g: string) => `group ${g}`;

  it("puts an entry a schema adds in its group's place, before Task center, even as the group's only entry", () => {
    // The console's screens come first in the entries, the schemas' after them (as useMenuEntries lists them).
    const tree = menuTree(
      [
        { key: 'analysis', group: 'dashboard', label: 'Analysis' },
        { key: 'taskcenter', group: 'tasks', label: 'Task center' },
        { key: 'r/apn-profiles', group: 'settings', label: 'APN profiles' },
      ],
      label,
    );
    expect(tree.map((n) => n.label)).toEqual(['Analysis', 'APN profiles', 'Task center']);
    expect(tree[1]).toEqual({ key: 'r/apn-profiles', group: 'settings', label: 'APN profiles' });
  });

  it('makes a group of two entries or more, in the order they came', () => {
    const tree = menuTree(
      [
        { key: 'setCard', group: 'settings', label: 'Accounts' },
        { key: 'taskcenter', group: 'tasks', label: 'Task center' },
        { key: 'r/apn-profiles', group: 'settings', label: 'APN profiles' },
      ],
      label,
    );
    expect(tree).toEqual([
      {
        key: 'settings',
        group: 'settings',
        label: 'group settings',
        children: [
          { key: 'setCard', label: 'Accounts' },
          { key: 'r/apn-profiles', label: 'APN profiles' },
        ],
      },
      { key: 'taskcenter', group: 'tasks', label: 'Task center' },
    ]);
  });
});

describe('what an edit form sends', () => {
  const properties = { name: { type: 'string' }, username: { type: ['string', 'null'] }, note: { type: 'string' } };

  it('null for a field that held a value, was emptied and may be null', () => {
    expect(editValues(properties, { name: 'Private net', username: 'fleet' }, { name: 'Private net' })).toEqual({ name: 'Private net', username: null });
  });

  it('nothing more for a field that may not be null, or that held nothing', () => {
    expect(editValues(properties, { name: 'A', note: 'x' }, { name: 'A' })).toEqual({ name: 'A' });
    expect(editValues(properties, { name: 'A' }, { name: 'A' })).toEqual({ name: 'A' });
  });

  it('the value given, where one is given', () => {
    expect(editValues(properties, { username: 'old' }, { username: 'new' })).toEqual({ username: 'new' });
  });
});

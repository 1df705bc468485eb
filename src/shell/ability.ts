/** The signed-in role's ability, built from the rules the server sent (never computed in the console). */
import { abilityFromRules, type AppAbility, type AppRule } from '../../common/ability';
import { store } from '../providers/session-store';

let cached: { raw: string; ability: AppAbility } | null = null;

/** The current ability; rebuilt when the stored rules change (sign-in, organisation switch). */
export function currentAbility(): AppAbility {
  const raw = store.get('permissions') ?? '[]';
  if (cached?.raw !== raw) {
    let rules: AppRule[];
    try {
      rules = JSON.parse(raw) as AppRule[];
    } catch {
      rules = [];
    }
    cached = { raw, ability: abilityFromRules(rules) };
  }
  return cached.ability;
}

/** SPEC.md section 2: a menu item or route shows only where the key allows * or read. */
export const canRead = (subject: string): boolean => currentAbility().can('read', subject);

/**
 * The names of the organisation's shared pools, for a pool scope in words ("Pool: EU Fleet Pool" rather than "A shared
 * pool"). Asked of the server (GET /auto_flow/cube/pools) only when a scope names a pool not known yet, once for all the
 * components that ask at the same time; a pool the answer does not hold (deleted since) is not asked for again.
 */
import { useEffect, useMemo, useState } from 'react';
import type { RuleScope } from '../../../common/autoflow-rule';
import { autoflowApi } from './api';

const names = new Map<string, string>();
const unknown = new Set<string>();
let asking: Promise<Array<{ id: string; name: string }>> | null = null;

/** The organisation's pools, one call for every caller while it is under way; what it answers is remembered by id. */
export function fetchPools(): Promise<Array<{ id: string; name: string }>> {
  asking ??= autoflowApi
    .pools()
    .then((list) => {
      for (const p of list) names.set(p.id, p.name);
      return list;
    })
    .finally(() => (asking = null));
  return asking;
}

/** The pool ids these scopes name. */
export const poolIdsOf = (scopes: ReadonlyArray<RuleScope | null | undefined>): string[] =>
  [...new Set(scopes.flatMap((s) => (s?.type === 'pool' && s.poolId ? [s.poolId] : [])))].sort();

/** Pool names by id, with those of `ids` asked for when not known yet (the map is new when it learnt some). */
export function usePoolNames(ids: readonly string[]): ReadonlyMap<string, string> {
  const [version, setVersion] = useState(0);
  const key = ids.join('|');
  useEffect(() => {
    const wanted = key ? key.split('|').filter((id) => !names.has(id) && !unknown.has(id)) : [];
    if (!wanted.length) return;
    let live = true;
    fetchPools().then(
      () => {
        for (const id of wanted) if (!names.has(id)) unknown.add(id);
        if (live) setVersion((v) => v + 1);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [key]);
  // A new map whenever the names learnt change (version) or other pools are asked for (key).
  return useMemo(() => new Map(names), [version, key]);
}

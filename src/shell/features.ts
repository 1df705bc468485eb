/** Features an organisation may lack (SPEC.md section 2): the shared-pool entry shows only where a pool exists. */
import { useCustom } from '@refinedev/core';
import { useSessionValue } from '../providers/use-session-value';
import { canRead } from './ability';

/** Whether the current organisation has a shared pool; unknown (undefined) while the answer is on its way. */
export function useHasPools(): boolean | undefined {
  const org = useSessionValue('partnerCode');
  useSessionValue('permissions');
  const readable = canRead('shared-pool-cube');
  const { result, query } = useCustom<{ total: number }>({
    url: '/api/pool/shared_pool/cube/dashboard/pools',
    method: 'get',
    config: { query: { pageSize: 1 } },
    queryOptions: { queryKey: ['has-pools', org], enabled: readable, staleTime: 60_000 },
    errorNotification: false,
  });
  if (!readable) return false;
  if (query.isLoading) return undefined;
  return ((result?.data as { total?: number } | undefined)?.total ?? 0) > 0;
}

/** Fetch the current rules and organisation list again (an admin changed them, an organisation was renamed). */
import { api } from '../providers/http';
import { store, type SessionAnswer } from '../providers/session-store';
import { announceSessionChange } from '../providers/use-session-value';

export async function refreshRights(): Promise<void> {
  const r = await api<{ permissions: unknown[]; roles: SessionAnswer['roles'] }>('PUT', '/api/identity/permission/info/cube/permission/refresh', undefined, {
    quiet: true,
  });
  store.set('permissions', JSON.stringify(r.permissions));
  store.set('roles', JSON.stringify(r.roles));
  const current = r.roles.find((o) => o.code === store.get('partnerCode'));
  if (current) store.set('enterpriseName', current.name);
  announceSessionChange();
}

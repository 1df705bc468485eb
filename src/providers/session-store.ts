/** Browser storage keys of SPEC.md section 3, in one place. */
export const STORAGE_KEYS = [
  'token',
  'partnerCode',
  'enterpriseCode',
  'enterpriseName',
  'userId',
  'username',
  'accountName',
  'userEmail',
  'tenantId',
  'TimeZone',
  'lang',
  'theme',
  'navIndex',
  'historyName',
  'historyQuery',
  'roles',
  'permissions',
] as const;
export type StorageKey = (typeof STORAGE_KEYS)[number];

export const store = {
  get: (key: StorageKey): string | null => localStorage.getItem(key),
  set: (key: StorageKey, value: string) => localStorage.setItem(key, value),
  remove: (key: StorageKey) => localStorage.removeItem(key),
};

export interface SessionAnswer {
  user: { token: string; name: string; email: string; id: string; logins_count: number; locale?: string };
  customData: { partner_code: string };
  permissions: unknown[];
  roles: Array<{ code: string; name: string; role: string; default: boolean; pending_invitation: boolean }>;
}

/** Keep a session answer (sign-in or session fetch) in storage. */
export function saveSession(s: SessionAnswer): void {
  const current = s.roles.find((r) => r.code === s.customData.partner_code);
  store.set('token', s.user.token);
  store.set('partnerCode', s.customData.partner_code);
  store.set('enterpriseCode', s.customData.partner_code);
  store.set('enterpriseName', current?.name ?? '');
  store.set('tenantId', s.customData.partner_code);
  store.set('userId', s.user.id);
  store.set('username', s.user.name);
  store.set('accountName', s.user.name);
  store.set('userEmail', s.user.email);
  store.set('roles', JSON.stringify(s.roles));
  store.set('permissions', JSON.stringify(s.permissions));
  if (!store.get('TimeZone')) store.set('TimeZone', 'local');
}

/** Sign-out clears every local session key (the chosen language stays, it is not session data). */
export function clearSession(): void {
  const lang = store.get('lang');
  localStorage.clear();
  sessionStorage.clear();
  if (lang) store.set('lang', lang);
}

/** The role in the current organisation. */
export function currentRole(): string | null {
  try {
    const roles = JSON.parse(store.get('roles') ?? '[]') as SessionAnswer['roles'];
    return roles.find((r) => r.code === store.get('partnerCode'))?.role ?? null;
  } catch {
    return null;
  }
}

/** SPEC.md section 4: a first 401 with a stored token clears all storage, the language included. */
export function clearAllStorage(): void {
  localStorage.clear();
  sessionStorage.clear();
}

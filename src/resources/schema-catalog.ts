/**
 * The resources a schema alone adds (docs/schemas.md): the server sends those with a menu place that the role may
 * read (GET /api/main/resources); their labels travel in the schema and join the console's translations here.
 */
import { useCustom } from '@refinedev/core';
import type { ResourceSchema } from '../../common/resources';
import i18n from '../i18n';
import { useSessionValue } from '../providers/use-session-value';

/** Merge a schema's own labels under its translation prefix, in every language it brings. */
export function addSchemaTranslations(r: ResourceSchema): void {
  const admin = r['x-admin'];
  for (const [lang, labels] of Object.entries(admin.translations ?? {})) {
    i18n.addResourceBundle(lang, 'translation', { [admin.i18n]: labels }, true, true);
  }
}

/** The catalog for the current organisation and rules (refetched when either changes). */
export function useSchemaCatalog(): { items: ResourceSchema[]; loaded: boolean } {
  const org = useSessionValue('partnerCode');
  const rules = useSessionValue('permissions');
  const { result, query } = useCustom<{ items: ResourceSchema[] }>({
    url: '/api/main/resources',
    method: 'get',
    queryOptions: { queryKey: ['schema-catalog', org, rules], staleTime: Infinity },
    errorNotification: false,
  });
  const items = (result?.data as { items?: ResourceSchema[] } | undefined)?.items ?? [];
  // Labels must be in place before the first render that reads them (idempotent; i18next re-renders nobody).
  for (const r of items) if (!i18n.exists(`${r['x-admin'].i18n}.title`)) addSchemaTranslations(r);
  return { items, loaded: !query.isLoading };
}

/** The address of a schema resource's page under the language prefix. */
export const schemaPath = (name: string, page: 'list' | 'create' | 'show' | 'edit' = 'list', id?: string): string =>
  page === 'list' ? `r/${name}` : page === 'create' ? `r/${name}/create` : `r/${name}/${page}/${encodeURIComponent(id ?? '')}`;

/**
 * The response schema of a page of rows, written once for the routes that answer `{ items, total, … }`: the rows'
 * schema, the total, and whatever else the page tells (its number and size, a cursor, a count beside the total).
 */
export const PAGE_NUMBERS = { page: { type: 'integer' }, pageSize: { type: 'integer' } } as const;

export function pageResponse(item: object, extra: Record<string, object> = {}): { type: 'object'; properties: Record<string, object> } {
  return { type: 'object', properties: { items: { type: 'array', items: item }, total: { type: 'integer' }, ...extra } };
}

/**
 * What an edit form sends: the values the person left, plus null for each field that held a value and was emptied
 * where the schema lets it be null (a user name taken away). RJSF drops an emptied field, and the edit call changes
 * only the fields it names, so without the null the old value would silently stay.
 */
type Props = Record<string, { type?: string | string[] }>;

export function editValues(properties: Props, initial: Record<string, unknown>, values: Record<string, unknown>): Record<string, unknown> {
  const emptied = Object.keys(initial).filter((f) => values[f] === undefined && ([] as string[]).concat(properties[f]?.type ?? []).includes('null'));
  return { ...values, ...Object.fromEntries(emptied.map((f) => [f, null])) };
}

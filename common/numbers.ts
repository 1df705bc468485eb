/**
 * Numbers as the interface language writes them, one way everywhere (the console and the server's messages).
 *
 * Grouping is always on: CLDR leaves four-digit numbers ungrouped in Spanish ("9997") but groups five ("10.000"),
 * so a balance read "9997 / 10.000", and antd's Statistic regrouped the bare "9997" with its own "," ("9,997 /
 * 10.000"). With `useGrouping: 'always'` every count in a language uses that language's separator from 1,000 up.
 */
type Options = Omit<Intl.NumberFormatOptions, 'useGrouping'>;

const cache = new Map<string, Intl.NumberFormat>();

/** The language's number format with these options (grouping always on), made once per language and options. */
export function numberFormat(lang: string, options: Options = {}): Intl.NumberFormat {
  const id = `${lang}|${JSON.stringify(options)}`;
  let format = cache.get(id);
  if (!format) {
    format = new Intl.NumberFormat(lang, { ...options, useGrouping: 'always' });
    cache.set(id, format);
  }
  return format;
}

/** A number written in the language: `formatNumber(9997, 'es-ES')` is "9.997", in en-US "9,997". */
export function formatNumber(value: number, lang: string, options?: Options): string {
  return numberFormat(lang, options).format(value);
}

/** A sum of money given in minor units, as the language writes it with its currency: "€80.00" in en-US, "80,00 €" in es-ES. */
export function formatMoney(minor: number, currency: string, lang: string): string {
  return numberFormat(lang, { style: 'currency', currency }).format(minor / 100);
}

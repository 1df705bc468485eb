/** Types for subset-font (HarfBuzz's hb-subset as WebAssembly), which ships none. */
declare module 'subset-font' {
  interface SubsetOptions {
    targetFormat?: 'sfnt' | 'truetype' | 'woff' | 'woff2';
    preserveNameIds?: number[];
    keepFeatures?: string[];
    noLayoutClosure?: boolean;
    noHinting?: boolean;
    dropTables?: string[];
  }
  export default function subsetFont(font: Uint8Array, text: string, options?: SubsetOptions): Promise<Buffer>;
}

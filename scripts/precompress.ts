/**
 * Build-time compression of the console: a brotli (.br) and a gzip (.gz) copy beside every
 * text file of the build, at the strongest settings, so the server picks one by the request's Accept-Encoding
 * (@fastify/static's preCompressed) and does no compression work per request for a static file.
 * Runs as a Vite plugin after the bundle is written (into whatever outDir the build was given), or by hand:
 * `tsx scripts/precompress.ts <dir>`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Plugin, ResolvedConfig } from 'vite';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Files worth compressing: text. Images and fonts of the build are compressed formats already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|xml|map|wasm)$/;
/** Below this a compressed copy saves less than a packet (the same floor @fastify/compress uses for answers). */
export const MIN_BYTES = 1024;

export interface Written {
  file: string;
  raw: number;
  br: number;
  gz: number;
}

/** Every file under dir, relative, skipping Vite's own .vite/ (the manifest, never served). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .filter((f) => !f.split(path.sep).some((part) => part.startsWith('.')));
}

/** Write file.br and file.gz beside each compressible file of dir; a copy that is not smaller is not written. */
export async function precompressDir(dir: string): Promise<Written[]> {
  const files = (await filesUnder(dir)).filter((f) => COMPRESSIBLE.test(f));
  const done = await Promise.all(
    files.map(async (file): Promise<Written | null> => {
      const full = path.join(dir, file);
      const bytes = await fs.readFile(full);
      if (bytes.length < MIN_BYTES) return null;
      const [br, gz] = await Promise.all([
        brotli(bytes, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
        }),
        gzip(bytes, { level: zlib.constants.Z_BEST_COMPRESSION }),
      ]);
      if (br.length < bytes.length) await fs.writeFile(`${full}.br`, br);
      if (gz.length < bytes.length) await fs.writeFile(`${full}.gz`, gz);
      return { file, raw: bytes.length, br: br.length, gz: gz.length };
    }),
  );
  return done.filter((w): w is Written => w !== null);
}

/** The Vite plugin: compresses the build's output folder once the bundle (and public/) is written. */
export function precompress(): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'iot-console:precompress',
    apply: 'build',
    configResolved(resolved) {
      config = resolved;
    },
    async closeBundle() {
      const outDir = path.resolve(config.root, config.build.outDir);
      const written = await precompressDir(outDir);
      const sum = (k: keyof Omit<Written, 'file'>) => Math.round(written.reduce((n, w) => n + w[k], 0) / 1024);
      config.logger.info(
        `precompress: ${written.length} files in ${path.relative(config.root, outDir) || '.'}: ${sum('raw')} KB raw, ${sum('gz')} KB gzip, ${sum('br')} KB brotli`,
      );
    },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = path.resolve(process.argv[2] ?? 'dist');
  const written = await precompressDir(dir);
  console.log(`precompress: ${written.length} files in ${dir}`);
}

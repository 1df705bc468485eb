/**
 * Where stored files' bytes live (exports, reports, PDFs): behind this interface so that an S3-compatible bucket can
 * replace the local folder. The local store keeps them under DATA_DIR/files; with several instances, that folder must
 * be shared (README, "Several instances").
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

export interface FileStore {
  /** A path to write a new file's bytes to; publish() makes it readable under key, atomically. */
  draft(key: string): string;
  publish(key: string): Promise<number>;
  read(key: string): Readable;
  exists(key: string): boolean;
  /** Remove the unpublished drafts under a folder: what an attempt that was stopped left behind. */
  discardDrafts(folder: string): Promise<void>;
}

export class LocalFileStore implements FileStore {
  constructor(private readonly root: string) {}

  private full(key: string): string {
    const p = path.resolve(this.root, key);
    if (!p.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`storage key outside the store: ${key}`);
    return p;
  }

  draft(key: string): string {
    const p = `${this.full(key)}.part`;
    fs.mkdirSync(path.dirname(p), { recursive: true });
    return p;
  }

  /** The draft becomes the file by a rename: a reader never sees half a file under the key. */
  async publish(key: string): Promise<number> {
    const p = this.full(key);
    await fs.promises.rename(`${p}.part`, p);
    return (await fs.promises.stat(p)).size;
  }

  read(key: string): Readable {
    return fs.createReadStream(this.full(key));
  }

  exists(key: string): boolean {
    return fs.existsSync(this.full(key));
  }

  async discardDrafts(folder: string): Promise<void> {
    const dir = this.full(folder);
    const names = await fs.promises.readdir(dir).catch(() => [] as string[]);
    await Promise.all(names.filter((n) => n.endsWith('.part')).map((n) => fs.promises.rm(path.join(dir, n), { force: true })));
  }
}

/** The local store of a data directory: DATA_DIR/files. */
export function filesIn(dataDir: string): LocalFileStore {
  return new LocalFileStore(path.join(dataDir, 'files'));
}

/**
 * A download's answers, the refusals included, are never kept by the browser: Chromium holds a 410 as fresh for ever
 * (like a 301), so one "no longer available" for a report's fixed address would hide the file made later.
 */
export function neverCached(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store');
}

/** A stored file's row, as a download needs it. */
export interface StoredFile {
  storage_key: string;
  name: string;
  content_type: string;
  size_bytes: string | number;
}

/** Answer a stored file as an attachment under its own name (ASCII fallback and the UTF-8 name), never cached. */
export function sendStored(reply: FastifyReply, store: FileStore, file: StoredFile) {
  return reply
    .type(file.content_type)
    .header('content-length', String(file.size_bytes))
    .header('content-disposition', `attachment; filename="${file.name.replace(/[^\w.-]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(file.name)}`)
    .header('cache-control', 'no-store')
    .send(store.read(file.storage_key));
}

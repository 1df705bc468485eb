/**
 * Reading a multipart request (uploads, SPEC.md section 5: one file of at most 1 MB; text fields of at most 1 MB; the
 * whole request at most the route's body limit, 2 MB unless the route says less). A request that passes a limit is
 * answered as soon as it does, and its connection closed, rather than read to its end: @fastify/multipart's toBuffer()
 * keeps reading a file past its limit until the part ends, and a request that declares 50 MB and sends 2 would be
 * waited for. A Content-Length that is already too large is refused before any of the body is read (uploadLimits).
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import { CODES } from '../../common/errors.js';
import { LIMITS } from '../../common/limits.js';
import { ApiError, invalid } from './api-error.js';

/** One text field and its value, in the order sent. */
export interface FormField {
  name: string;
  value: string;
}

export interface MultipartForm {
  /** The first file part, with its field name, file name and bytes (later file parts are refused by the files limit). */
  file: { field: string; name: string; bytes: Uint8Array } | null;
  fields: FormField[];
}

/** Requests whose reading was stopped part way: their answer closes the connection (plugins/app/error-handler.ts). */
const stopped = new WeakSet<IncomingMessage>();
export const readingStopped = (raw: IncomingMessage): boolean => stopped.has(raw);

/** Stop reading a request's body: nothing more is taken from the connection, which the answer then closes. */
function stopReading(raw: IncomingMessage): void {
  stopped.add(raw);
  raw.unpipe();
  raw.pause();
}

/**
 * Close a connection whose request was not read to its end gently: the answer, then our end closed (FIN), then what the
 * client is still sending read and thrown away for up to LINGER_MS or LINGER_BYTES, and only then the socket destroyed.
 * Destroyed at once, the unread data would make the kernel reset the connection, which can throw the answer away in
 * the client before it reads it (seen under load). The bytes bound keeps "not read to its end" true for large bodies.
 */
const LINGER_MS = 2000;
const LINGER_BYTES = 8 * 1024 * 1024;
export function lingerOnClose(socket: Socket | null | undefined): void {
  if (!socket) return;
  (socket as Socket & { destroySoon: () => void }).destroySoon = function (this: Socket) {
    this.end();
    let read = 0;
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    this.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > LINGER_BYTES) this.destroy();
    });
    this.resume();
  };
}

/** A size limit in words: whole megabytes as MB, anything else in KB. */
export const sizeText = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${Math.round(bytes / 1024)} KB`);

const bodyLimitOf = (req: FastifyRequest): number => req.routeOptions.bodyLimit ?? req.server.initialConfig.bodyLimit ?? LIMITS.uploadBytes * 2;
/** 413 naming the request's limit and the file's, the one a person is likely to have passed. */
const tooLarge = (req: FastifyRequest) =>
  new ApiError(413, CODES.validation, { limit: sizeText(bodyLimitOf(req)), fileLimit: sizeText(LIMITS.uploadBytes) }, 'errors.uploadTooLarge', {
    field: 'body',
    rule: 'uploadTooLarge',
  });
const fileTooLarge = () => invalid('file', 'maximum', { limit: sizeText(LIMITS.uploadBytes) });

/** The parts of a multipart request, each checked against its limit as it arrives. */
export async function readMultipart(req: FastifyRequest): Promise<MultipartForm> {
  const raw = req.raw;
  const limit = bodyLimitOf(req);
  let overflow: (e: Error) => void = () => {};
  const overflowed = new Promise<never>((_, reject) => (overflow = reject));
  overflowed.catch(() => {});
  const parts = req.parts()[Symbol.asyncIterator]();
  // The first next() pipes the request into the parser; counting its bytes from here sees every one.
  // A part still awaited when reading stops may fail later (the connection closes): that is no news to anyone.
  const ask = () => {
    const p = parts.next();
    p.catch(() => {});
    return p;
  };
  let next = ask();
  let seen = 0;
  const count = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limit) overflow(tooLarge(req));
  };
  raw.on('data', count);
  const form: MultipartForm = { file: null, fields: [] };
  try {
    for (;;) {
      const { value: part, done } = await Promise.race([next, overflowed]);
      if (done) break;
      if (part.type === 'file') {
        const bytes = await readFile(part, overflowed);
        if (!form.file) form.file = { field: part.fieldname, name: part.filename, bytes };
      } else {
        const field = part as MultipartValue;
        // The parser cuts a longer value at the limit: refused, never used cut.
        if (field.valueTruncated) throw invalid(field.fieldname, 'maximum', { limit: sizeText(LIMITS.uploadBytes) });
        if (typeof field.value === 'string') form.fields.push({ name: field.fieldname, value: field.value });
      }
      next = ask();
    }
  } catch (e) {
    stopReading(raw);
    throw e;
  } finally {
    raw.off('data', count);
  }
  return form;
}

/** A file part's bytes, refused the moment it passes the file limit (or the request passes its own). */
function readFile(part: MultipartFile, overflowed: Promise<never>): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const stream = part.file;
    stream.on('limit', () => reject(fileTooLarge()));
    stream.on('data', (chunk: Buffer) => {
      if (stream.truncated) reject(fileTooLarge());
      else chunks.push(chunk);
    });
    stream.on('end', () => (stream.truncated ? reject(fileTooLarge()) : resolve(new Uint8Array(Buffer.concat(chunks)))));
    stream.on('error', reject);
    overflowed.catch(reject);
  });
}

const isMultipartType = (type: string | undefined) => /^multipart\//i.test(type ?? '');

/**
 * A multipart request whose Content-Length already passes the route's body limit is refused before its body is read
 * (with 413 naming the limit, the connection then closed), so the client need not send it.
 */
export function uploadLimits(app: FastifyInstance): void {
  app.addHook('onRequest', async (req) => {
    if (!isMultipartType(req.headers['content-type'])) return;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > bodyLimitOf(req)) {
      stopped.add(req.raw);
      throw tooLarge(req);
    }
  });
}

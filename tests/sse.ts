/** Server-sent events read from a real connection (fetch's Response), for the API tests of the live stream. */
import type { FastifyInstance } from 'fastify';

export type Frame = { event: string; id?: string; data: unknown };

/** A stream's frames as they come; `ended` settles when the server (or stop) closes it. */
export interface Frames {
  frames: Frame[];
  ended: Promise<void>;
  stop: () => Promise<void>;
}

/** Collect a stream's frames as they come, until stopped or closed by the server. */
export function collectFrames(res: Response): Frames {
  const frames: Frame[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const ended = (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((l) => !l.startsWith(':') && l.includes(': '))
            .map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]),
        );
        if (fields.event) frames.push({ event: fields.event, id: fields.id, data: JSON.parse(fields.data ?? 'null') });
      }
    }
  })();
  return { frames, ended, stop: async () => void (await reader.cancel(), await ended) };
}

/** The frames that arrive until `until` is satisfied or `ms` have passed (then the connection is closed). */
export async function readEvents(res: Response, until: (frames: Frame[]) => boolean, ms = 5000): Promise<Frame[]> {
  const { frames, stop } = collectFrames(res);
  const deadline = Date.now() + ms;
  while (!until(frames) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await stop();
  return frames;
}

/** Start `app` on a free port of 127.0.0.1 and return its address: a live stream needs a real connection. */
export async function listenOnLoopback(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

/** The live stream of a signed-in session (GET /api/identity/sse/connect); `headers` adds e.g. a reconnect's Last-Event-ID. */
export function connectLive(
  base: string,
  session: { accountId: string; headers: Record<string, string> },
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${base}/api/identity/sse/connect?userId=${session.accountId}`, { headers: { ...session.headers, ...headers } });
}

/** A session's live stream, its frames collected as they come. */
export async function openLive(
  base: string,
  session: { accountId: string; headers: Record<string, string> },
  headers: Record<string, string> = {},
): Promise<Frames> {
  return collectFrames(await connectLive(base, session, headers));
}

/** Wait until `check` holds, polling every 20 ms; throws naming `what` after `ms`. */
export async function waitUntil(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The task events of one task on a stream. */
export const taskFrames = (frames: Frame[], id: string): Frame[] => frames.filter((f) => f.event === 'task' && (f.data as { id?: string }).id === id);

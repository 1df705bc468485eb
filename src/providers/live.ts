/**
 * The live provider: one server-sent-events stream per signed-in tab (GET /api/identity/sse/connect?userId=…),
 * read with fetch so that it carries the bearer token and the headers of every call. It connects while someone
 * listens, reconnects with a growing pause (resuming after the last event id), and hands each event to the
 * listeners of its type. Refine's liveProvider sits on top for the pages that use liveMode.
 */
import type { LiveEvent as RefineLiveEvent, LiveProvider } from '@refinedev/core';
import { openStream } from './http';
import { store } from './session-store';

export type LiveType = 'permissions' | 'task' | 'sms' | 'ready';
type Listener = (data: unknown) => void;

const listeners = new Map<LiveType, Set<Listener>>();
let controller: AbortController | null = null;
let lastEventId: string | null = null;
let retryMs = 1000;
const MAX_RETRY_MS = 30_000;
/** Is the stream open now (its ready frame came, and it has not dropped since)? */
let up = false;
const upListeners = new Set<(up: boolean) => void>();
function setUp(value: boolean): void {
  if (up === value) return;
  up = value;
  for (const l of upListeners) l(up);
}

/**
 * Be told whether the stream is open (now, then at each change); returns the function that stops telling. A page that
 * follows live events refreshes itself slowly while the stream is down.
 */
export function onLiveUp(listener: (up: boolean) => void): () => void {
  upListeners.add(listener);
  listener(up);
  return () => void upListeners.delete(listener);
}

/** Parse SSE frames out of a growing text buffer; returns the unparsed rest. */
export function parseFrames(buffer: string, emit: (f: { event: string; data: string; id?: string }) => void): string {
  let end: number;
  while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
    const block = buffer.slice(0, end);
    buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
    const frame: { event: string; data: string; id?: string } = { event: 'message', data: '' };
    for (const line of block.split(/\r?\n/)) {
      if (!line || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') frame.event = value;
      else if (field === 'data') frame.data += (frame.data ? '\n' : '') + value;
      else if (field === 'id') frame.id = value;
    }
    if (frame.data || frame.event !== 'message') emit(frame);
  }
  return buffer;
}

function dispatch(type: string, raw: string): void {
  let data: unknown;
  try {
    data = raw ? JSON.parse(raw) : null;
  } catch {
    data = raw;
  }
  for (const l of listeners.get(type as LiveType) ?? []) l(data);
}

async function run(signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    const userId = store.get('userId');
    if (!userId || !store.get('token')) return;
    try {
      // After a drop, the server replays what was missed since the last event seen.
      const resume: Record<string, string> = lastEventId ? { 'Last-Event-ID': lastEventId } : {};
      const res = await openStream(`/api/identity/sse/connect?userId=${encodeURIComponent(userId)}`, signal, resume);
      retryMs = 1000;
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer = parseFrames(buffer + value, (f) => {
          if (f.id) lastEventId = f.id;
          if (f.event === 'ready') setUp(true);
          dispatch(f.event, f.data);
        });
      }
    } catch {
      /* dropped, refused or offline: wait and try again */
    }
    setUp(false);
    if (signal.aborted) return;
    await new Promise((r) => setTimeout(r, retryMs));
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  }
}

function ensureConnected(): void {
  if (controller || listeners.size === 0) return;
  controller = new AbortController();
  const mine = controller;
  void run(mine.signal).finally(() => {
    if (controller === mine) controller = null;
  });
}

/** Listen to one type of live event; returns the function that stops listening (and closes the stream after the last). */
export function subscribeLive(type: LiveType, listener: Listener): () => void {
  if (!listeners.has(type)) listeners.set(type, new Set());
  listeners.get(type)!.add(listener);
  ensureConnected();
  return () => {
    const set = listeners.get(type);
    set?.delete(listener);
    if (set && set.size === 0) listeners.delete(type);
    if (listeners.size === 0) disconnectLive();
  };
}

/** Close the stream (sign-out, organisation switch before reload). */
export function disconnectLive(): void {
  controller?.abort();
  controller = null;
  setUp(false);
}

/** Refine's live provider: a channel is a resource; the server's task events reach the "tasks" channel. */
export const liveProvider: LiveProvider = {
  subscribe: ({ channel, callback }) => {
    const type: LiveType = channel.endsWith('tasks') ? 'task' : 'permissions';
    return subscribeLive(type, (payload) => callback({ channel, type: 'updated', payload: (payload ?? {}) as RefineLiveEvent['payload'], date: new Date() }));
  },
  unsubscribe: (unsubscribe: () => void) => unsubscribe(),
};

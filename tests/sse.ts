/** Server-sent events read from a real connection (fetch's Response), for the API tests of the live stream. */
export type Frame = { event: string; id?: string; data: unknown };

/** Collect a stream's frames as they come, until stopped. */
export function collectFrames(res: Response): { frames: Frame[]; stop: () => Promise<void> } {
  const frames: Frame[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const done = (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(block.split('\n').filter((l) => !l.startsWith(':') && l.includes(': ')).map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]));
        if (fields.event) frames.push({ event: fields.event, id: fields.id, data: JSON.parse(fields.data ?? 'null') });
      }
    }
  })();
  return { frames, stop: async () => void (await reader.cancel(), await done) };
}

/** The frames that arrive until `until` is satisfied or `ms` have passed (then the connection is closed). */
export async function readEvents(res: Response, until: (frames: Frame[]) => boolean, ms = 5000): Promise<Frame[]> {
  const { frames, stop } = collectFrames(res);
  const deadline = Date.now() + ms;
  while (!until(frames) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await stop();
  return frames;
}

/** The NATS server of this machine (127.0.0.1:4222, JetStream on), and whether it answers; CI runs it, so there a missing server fails. */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { answersOn } from '../scripts/ports.js';

export const NATS_URL = 'nats://127.0.0.1:4222';

export { answersOn };

export const natsAnswers = await answersOn(4222);

if (!natsAnswers && process.env.CI) throw new Error('NATS does not answer on 127.0.0.1:4222 (CI must start it in .ci/run)');

/** Delete a stream a test or a test server made on this machine's NATS (gone already is fine). */
export async function deleteStream(stream: string): Promise<void> {
  await deleteStreamAt(NATS_URL, stream);
}

/** Delete a stream on the NATS server at url (gone already is fine). */
export async function deleteStreamAt(url: string, stream: string): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
  } finally {
    await nc.close();
  }
}

/**
 * A slow link to this machine's NATS: a TCP relay that hands the client what the server sends in pieces of `piece`
 * bytes, `gapMs` apart, as a loaded machine or a far network would. A large pull then reaches the reader in parts.
 */
export async function slowLinkToNats(piece = 8192, gapMs = 5): Promise<{ url: string; close: () => Promise<void> }> {
  const net = await import('node:net');
  const sockets = new Set<import('node:net').Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(4222, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => (sockets.delete(s), client.destroy(), upstream.destroy()));
    }
    client.pipe(upstream);
    let relayed = Promise.resolve();
    upstream.on('data', (buf: Buffer) => {
      relayed = relayed.then(async () => {
        for (let i = 0; i < buf.length && !client.destroyed; i += piece) {
          client.write(buf.subarray(i, i + piece));
          await new Promise((r) => setTimeout(r, gapMs));
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  return {
    url: `nats://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

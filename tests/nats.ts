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

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { migrate, openPostgres } from '../../server/db/db.js';
import { seedDemo } from '../../server/db/seed.js';
import { createPostgresDatabase } from '../helper.js';

describe('start-up', () => {
  it('refuses VERIFICATION_CODE in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', VERIFICATION_CODE: '1' } as NodeJS.ProcessEnv)).toThrow(/refused when NODE_ENV=production/);
    expect(loadConfig({ NODE_ENV: 'production' } as NodeJS.ProcessEnv).verificationCode).toBeUndefined();
  });

  it.runIf(!!process.env.TEST_DATABASE_URL)('several instances migrate and seed one PostgreSQL at once, exactly once', async () => {
    const { url, drop } = await createPostgresDatabase();
    const dbs = await Promise.all([openPostgres(url), openPostgres(url), openPostgres(url)]);
    try {
      const applied = await Promise.all(dbs.map((db) => migrate(db)));
      expect(applied.filter((a) => a.length > 0)).toHaveLength(1);
      const seeded = await Promise.all(dbs.map((db) => seedDemo(db, { size: 'small' })));
      expect(seeded.filter(Boolean)).toHaveLength(1);
      expect((await dbs[0].query<{ n: number }>('SELECT count(*)::int AS n FROM brands')).rows[0].n).toBe(4);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await drop();
    }
  });
});

/** SIM statuses are declared once, in common/lifecycle.ts: the resource schema's enums repeat them exactly. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SIM_STATUSES, SUB_STATUSES } from '../../common/lifecycle.js';

const sims = JSON.parse(fs.readFileSync('schemas/sims.json', 'utf8')) as { properties: Record<string, { enum?: string[] }> };

describe('schemas/sims.json', () => {
  it('status enum equals SIM_STATUSES', () => expect(sims.properties.status.enum).toEqual([...SIM_STATUSES]));
  it('subStatus enum equals SUB_STATUSES', () => expect(sims.properties.subStatus.enum).toEqual([...SUB_STATUSES]));
});

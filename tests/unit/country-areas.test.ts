/** Every ISO 3166-1 country has exactly one area for GET /info_country_areas, and nothing else has one. */
import { describe, expect, it } from 'vitest';
import { areaGaps, COUNTRY_AREA } from '../../common/country-areas';

describe('country areas', () => {
  it('gives each of the 249 assigned codes one area, and no other code one', () => {
    expect(areaGaps()).toEqual({ missing: [], unknown: [] });
    expect(COUNTRY_AREA.size).toBe(249);
  });

  it('places transcontinental countries as the UN geoscheme does', () => {
    expect([COUNTRY_AREA.get('RU'), COUNTRY_AREA.get('TR'), COUNTRY_AREA.get('EG'), COUNTRY_AREA.get('DE'), COUNTRY_AREA.get('AQ')]).toEqual([
      'EU',
      'AS',
      'AF',
      'EU',
      'AN',
    ]);
  });
});

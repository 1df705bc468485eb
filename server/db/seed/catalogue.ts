/** The catalogue the seed draws from: networks, radio types, device kinds, tags, countries, overage policies, plans. */
import type { Fleet } from './fixtures.js';

export const NETWORKS: Record<Fleet['country'], string[]> = {
  DE: ['Vodafone DE 262-02', 'Telekom DE 262-01', 'O2 DE 262-03'],
  ES: ['Movistar ES 214-07', 'Vodafone ES 214-01', 'Orange ES 214-03'],
  GB: ['EE GB 234-30', 'Vodafone GB 234-15', 'O2 GB 234-10'],
};

export const ROAMING = ['Orange FR 208-01', 'KPN NL 204-08', 'Swisscom CH 228-01', 'A1 AT 232-01', 'TIM IT 222-01'];
export const RATS = [
  ['LTE', 40],
  ['CATM', 25],
  ['NBIoT', 15],
  ['3G', 10],
  ['2G', 7],
  ['undetermined', 3],
] as const;
export const TACS = ['35332011', '86723004', '35881910', '01542700', '35473711'];
export const TAGS = ['fleet', 'cold', 'gps', 'pilot', 'eu', 'trial', 'v2', 'meter', 'gateway', 'spare'];
export const DEVICE_KINDS = ['Tracker', 'Truck', 'Meter', 'Gateway', 'Reefer', 'Trailer', 'Sensor', 'Kiosk'];
export const COUNTRIES = ['DE', 'AT', 'FR', 'NL', 'ES', 'IT', 'GB', 'CH', 'BE', 'PL'];
export const OVERAGE = ['stop', 'billing', 'billing_speed_decrease', 'billing_throttle_after_threshold', 'billing_stop_after_allowance'] as const;

export interface Plan {
  name: string;
  sku: string;
  quotaKb: number;
  reset: 'DAY' | 'DAY_24H' | 'MONTH' | 'MONTH_31D' | 'YEAR_366D';
  price: number;
}

export const PLANS: Plan[] = [
  { name: 'IoT Basic 100 MB', sku: 'EU-BAS-100M', quotaKb: 102_400, reset: 'MONTH', price: 1.5 },
  { name: 'IoT Basic 1 GB', sku: 'EU-BAS-1G', quotaKb: 1_048_576, reset: 'MONTH', price: 4 },
  { name: 'IoT Daily 5 MB', sku: 'EU-DAY-5M', quotaKb: 5_120, reset: 'DAY', price: 2 },
  { name: 'IoT 24h 10 MB', sku: 'EU-24H-10M', quotaKb: 10_240, reset: 'DAY_24H', price: 2.5 },
  { name: 'IoT 500 MB 31 days', sku: 'EU-31D-500M', quotaKb: 512_000, reset: 'MONTH_31D', price: 3 },
  { name: 'IoT Annual 5 GB', sku: 'EU-YR-5G', quotaKb: 5_242_880, reset: 'YEAR_366D', price: 30 },
];

export const TEST_PLAN: Plan = { name: 'Test 10 MB', sku: 'TST-10M', quotaKb: 10_240, reset: 'MONTH', price: 0 };
export const SUPPLEMENT_PLAN: Plan = { name: 'Top-up 50 MB', sku: 'EU-TOP-50M', quotaKb: 51_200, reset: 'MONTH', price: 1 };
export const POOL_PLAN: Plan = { name: 'Pool share 200 MB', sku: 'EU-POOL-200M', quotaKb: 204_800, reset: 'MONTH', price: 2 };

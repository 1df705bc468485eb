/** A SIM's bundle order as the SIM page's calls answer it, and the colour of each status (the bundles tab and its queue). */
export interface BundleOrder {
  id: string;
  name: string;
  sku: string;
  type: string;
  paymentMode: string;
  serviceType: string;
  status: 'PENDING' | 'IN_USE' | 'EXPIRED' | 'CANCELLED';
  quotaKb: number | null;
  usedKb: number;
  resetCycle: string;
  overagePolicy: string;
  throttleKbps: number | null;
  overageThresholdKb: number | null;
  outOfCoverage: string;
  coverageCountries: string[];
  orderedAt: string;
  activatedAt: string | null;
  expectedExpireAt: string | null;
  expiredAt: string | null;
  salesOrderId: string | null;
}

export const BUNDLE_STATUS_COLORS: Record<BundleOrder['status'], string> = { PENDING: 'gold', IN_USE: 'green', EXPIRED: 'default', CANCELLED: 'red' };

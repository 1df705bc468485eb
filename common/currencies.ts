/**
 * ISO 4217 currency codes in use (2026) whose minor unit is a hundredth, for an organisation's billing currency: the
 * settlement details accept only these. Invoices store money as numeric with two decimals, the minor unit
 * exactly, so the zero-digit (JPY, KRW…) and three-digit (BHD, KWD…) currencies are left out, as are funds codes,
 * precious metals and the testing codes (XTS, XXX).
 */
export const CURRENCIES: readonly string[] = (
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF ' +
  'CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ' +
  'ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR ' +
  'MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP ' +
  'STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VES WST XCD XCG YER ZAR ZMW ZWG'
).split(' ');

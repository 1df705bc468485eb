/**
 * Who is calling and in which organisation: the bearer token, the partnerCode header and the
 * membership behind them, checked on every call that is not public. Decorates request.auth.
 */
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { abilityFromRules, rulesFor, subjectOf, type AppAbility, type AppRule } from '../../common/ability.js';
import { CODES } from '../../common/errors.js';
import { pickLanguage, type Language } from '../../common/limits.js';
import { REASONS, type Action, type Caller, type Reason, type Subject } from '../../common/permissions.js';
import { asRole, type Role } from '../../common/roles.js';
import { ApiError, invalid } from './api-error.js';
import { AuthCache } from './auth-cache.js';
import type { Permission, RouteDef } from './route.js';
import { isPublicApi, verifyApiToken, type ApiKeyCaller } from '../developer/public-api.js';

export interface AuthContext {
  accountId: string;
  email: string;
  sessionId: string;
  orgId: string;
  orgCode: string;
  orgLevel: number;
  role: Role;
  /** What the permission file's conditions read about the caller (role, memberships, oversight). */
  caller: Caller;
  /** The caller's rules (the file's and the schema resources'), as the console receives them. */
  rules: AppRule[];
  ability: AppAbility;
}

declare module 'fastify' {
  interface FastifyRequest {
    lang: Language;
    auth: AuthContext | null;
    /** The signed-in context; throws 401 when there is none. */
    requireAuth(): AuthContext;
    /**
     * Throws unless the caller may do action on subject (optionally a record, optionally one of its fields): 403
     * "Permission denied", or the refusal the permission file names for the condition that refused.
     */
    authorize(action: Action, subject: Exclude<Subject, 'all'>, record?: Record<string, unknown>, field?: string): void;
  }
  interface FastifyInstance {
    /** The rules of a caller (or a bare role) with the loaded schema resources' declared rights. */
    rulesFor(who: Caller | Role): AppRule[];
    /** Who callers are (sessions, API keys), remembered for at most a second (auth-cache.ts). */
    authCache: AuthCache<unknown>;
  }
  interface FastifyContextConfig {
    permission?: Permission;
    routeDef?: RouteDef;
  }
}

/** The bearer token of a request, if any. */
export function bearerOf(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h || !h.startsWith('Bearer ')) return null;
  const token = h.slice(7).trim();
  return token.length > 0 ? token : null;
}

export default fp(async (app) => {
  app.decorateRequest('lang', 'en-US');
  app.decorateRequest('auth', null);
  app.decorateRequest('requireAuth', function (this: FastifyRequest) {
    if (!this.auth) throw new ApiError(401, CODES.unauthenticated);
    return this.auth;
  });
  // app.resources is decorated once the schemas are loaded, after this plugin: it is read at call time.
  app.decorate('rulesFor', (who: Caller | Role) => rulesFor(who, app.resources ?? []));
  const cache = new AuthCache<unknown>();
  app.decorate('authCache', cache);
  // A call that may change someone's rights (a role, a membership, a session, a key) is answered with the cache
  // forgotten, so on this instance the change holds from the next call on; other instances see it within a second.
  app.addHook('onSend', async (req, _reply, payload) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && !isRead(req.routeOptions.config?.permission)) cache.clear();
    return payload;
  });
  app.decorateRequest(
    'authorize',
    function (this: FastifyRequest, action: Action, subject: Exclude<Subject, 'all'>, record?: Record<string, unknown>, field?: string) {
      assertCan(this.requireAuth().ability, action, subject, record, field);
    },
  );
  /** The caller's context: its rules and ability are built once, here. */
  const contextOf = (
    base: Omit<AuthContext, 'caller' | 'rules' | 'ability'>,
    oversight: boolean,
    memberships: Caller['memberships'],
    backOffice: boolean,
  ): AuthContext => {
    const caller: Caller = {
      role: base.role,
      accountId: base.accountId,
      orgId: base.orgId,
      oversight,
      backOffice,
      memberships: (memberships ?? []).map((m) => ({ orgId: m.orgId, role: asRole(m.role) })),
    };
    const rules = app.rulesFor(caller);
    return { ...base, caller, rules, ability: abilityFromRules(rules) };
  };

  app.addHook('onRequest', async (req) => {
    req.lang = pickLanguage(headerOf(req, 'language') ?? req.headers['accept-language']?.split(',')[0]);
  });

  // preValidation: a caller without the right learns nothing from body validation (401/403 come first).
  app.addHook('preValidation', async (req) => {
    const permission = req.routeOptions.config?.permission;
    if (!permission || permission === 'public') return;
    req.auth = await authenticate(req);
    if (permission !== 'signedIn') req.authorize(permission.action, permission.subject);
  });

  async function removedSinceSignIn(accountId: string, orgCode: string, sessionId: string): Promise<boolean> {
    const r = await app.db.query(
      `SELECT 1 FROM audit_log l
         JOIN organisations o ON o.id = l.org_id AND o.code = $2
         JOIN sessions s ON s.id = $3
        WHERE l.action = 'removeMember' AND l.entity = 'membership' AND l.entity_id = $1 AND l.at >= s.created_at
        LIMIT 1`,
      [accountId, orgCode, sessionId],
    );
    return r.rows.length > 0;
  }

  /** A public API call: the API key's developer, in the key's organisation, with their role there now. */
  async function authenticateApiKey(req: FastifyRequest): Promise<AuthContext> {
    // The rate limiter has usually verified the token already (and set req.apiKey); otherwise it is verified here.
    const key = req.apiKey ?? (await verifyApiToken(app.db, bearerOf(req), cache));
    req.apiKey = key;
    const context = (await cache.through(`api-key-member|${key.id}`, () => apiKeyContext(key))) as AuthContext;
    // A key acts in its own organisation only: naming another one (SPEC.md's partnerCode) is refused as in the console.
    const named = headerOf(req, 'partnercode');
    if (named && named !== context.orgCode) throw new ApiError(403, CODES.permissionDenied);
    return context;
  }

  async function apiKeyContext(key: ApiKeyCaller): Promise<AuthContext> {
    const member = (
      await app.db.query<{
        email: string;
        oversight: boolean;
        back_office: boolean;
        code: string;
        level: number;
        role: string;
        memberships: Caller['memberships'];
      }>(
        `SELECT a.email, a.oversight, a.back_office, o.code, o.level, m.role,
                (SELECT coalesce(json_agg(json_build_object('orgId', mm.org_id, 'role', mm.role)), '[]') FROM memberships mm WHERE mm.account_id = a.id AND mm.status = 'active') AS memberships
           FROM accounts a JOIN memberships m ON m.account_id = a.id AND m.org_id = $2 AND m.status = 'active'
           JOIN organisations o ON o.id = m.org_id
          WHERE a.id = $1 AND a.status = 'active'`,
        [key.accountId, key.orgId],
      )
    ).rows[0];
    if (!member) throw new ApiError(401, CODES.unauthenticated, { keyId: key.keyId }, 'errors.apiKeyOwnerGone');
    const role = asRole(member.role);
    const base = {
      accountId: key.accountId,
      email: member.email,
      sessionId: `api-key:${key.id}`,
      orgId: key.orgId,
      orgCode: member.code,
      orgLevel: member.level,
      role,
    };
    return contextOf(base, member.oversight, member.memberships, member.back_office);
  }

  async function authenticate(req: FastifyRequest): Promise<AuthContext> {
    if (isPublicApi(req)) return authenticateApiKey(req);
    const token = bearerOf(req);
    if (!token) throw new ApiError(401, CODES.unauthenticated);
    const verified = await app.tokens.verify(token);
    if (!verified.ok) {
      // ARCHITECTURE.md: expired answers 400 "token unauthorised" so the console refreshes once and replays.
      if (verified.reason === 'expired') throw new ApiError(400, CODES.tokenUnauthorised);
      // A forged, tampered or garbled token is not an expired one: say so (the console signs out on either 401).
      throw new ApiError(401, CODES.unauthenticated, {}, 'errors.tokenInvalid');
    }
    const { sub, sid } = verified.claims;
    const partnerCode = headerOf(req, 'partnercode');
    return (await cache.through(`session|${sub}|${sid}|${partnerCode ?? ''}`, () => sessionContext(sub, sid, partnerCode))) as AuthContext;
  }

  async function sessionContext(sub: string, sid: string, partnerCode: string | undefined): Promise<AuthContext> {
    // The account, its session and its membership (of partnerCode's organisation, else its default) in one query:
    // every signed-in call makes it, so it is one round trip to the database, not two.
    const row = (
      await app.db.query<{
        id: string;
        email: string;
        status: string;
        oversight: boolean;
        back_office: boolean;
        revoked: boolean | null;
        org_id: string | null;
        code: string;
        level: number;
        role: string;
        memberships: Caller['memberships'];
      }>(
        `SELECT a.id, a.email, a.status, a.oversight, a.back_office, s.revoked_at IS NOT NULL AS revoked, m.org_id, m.code, m.level, m.role,
                (SELECT coalesce(json_agg(json_build_object('orgId', mm.org_id, 'role', mm.role)), '[]') FROM memberships mm WHERE mm.account_id = a.id AND mm.status = 'active') AS memberships
           FROM accounts a
           JOIN sessions s ON s.account_id = a.id AND s.id = $2
           LEFT JOIN LATERAL (
             SELECT m.org_id, o.code, o.level, m.role
               FROM memberships m JOIN organisations o ON o.id = m.org_id
              WHERE m.account_id = a.id AND m.status = 'active' AND ($3::text IS NULL OR o.code = $3)
              ORDER BY m.is_default DESC, o.level, o.code
              LIMIT 1
           ) m ON true
          WHERE a.id = $1`,
        [sub, sid, partnerCode ?? null],
      )
    ).rows[0];
    if (!row || row.revoked || row.status !== 'active') throw new ApiError(401, CODES.unauthenticated);
    const account = row;
    const membership = row.org_id === null ? undefined : { org_id: row.org_id, code: row.code, level: row.level, role: row.role };
    if (!membership) {
      // Removed from this organisation since signing in: the console's view of its organisations is stale, and
      // SPEC.md's 0502 (session-expired modal, then sign out) ends it. Otherwise a partnerCode the caller is no
      // member of is someone else's organisation: 403, never its data.
      if (partnerCode && (await removedSinceSignIn(account.id, partnerCode, sid))) throw new ApiError(403, CODES.sessionExpired);
      throw new ApiError(403, CODES.permissionDenied);
    }
    const role = asRole(membership.role);
    const base = {
      accountId: account.id,
      email: account.email,
      sessionId: sid,
      orgId: membership.org_id,
      orgCode: membership.code,
      orgLevel: membership.level,
      role,
    };
    return contextOf(base, account.oversight, account.memberships, account.back_office);
  }
});

/** Whether the ability allows action on subject (a record of it, one of its fields): what req.authorize asks. */
export function allows(ability: AppAbility, action: Action, subject: Exclude<Subject, 'all'>, record?: Record<string, unknown>, field?: string): boolean {
  return record ? ability.can(action, subjectOf(subject, record), field) : ability.can(action, subject);
}

/** Throw the refusal unless the ability allows action on subject (a record of it, one of its fields). */
export function assertCan(ability: AppAbility, action: Action, subject: Exclude<Subject, 'all'>, record?: Record<string, unknown>, field?: string): void {
  if (allows(ability, action, subject, record, field)) return;
  if (!record) throw refusalOf(action, subject);
  throw refusalOf(action, subject, ability.relevantRuleFor(action, subjectOf(subject, record), field)?.reason as Reason | undefined);
}

/**
 * The answer to a right that is missing: the refusal the permission file names for the condition that refused (its
 * REASONS), else 403 "Permission denied", except a write of autoflow rules, which SPEC.md section 8 answers with a
 * 400 "You do not have this permission, please contact your admin!".
 */
export function refusalOf(action: Action, subject: Exclude<Subject, 'all'>, reason?: Reason): ApiError {
  if (reason) {
    const r: { code: keyof typeof CODES; messageKey?: string; field?: string; rule?: string } = REASONS[reason];
    if (r.field && r.rule) return invalid(r.field, r.rule);
    return new ApiError(403, CODES[r.code], {}, r.messageKey);
  }
  if (subject === 'autoflow-cube' && action !== 'read') return new ApiError(400, CODES.autoflowWriteMissing);
  return new ApiError(403, CODES.permissionDenied);
}

/** Actions that change nothing (a read, every member's tasks, an export, which only makes a file). */
const READ_ACTIONS = new Set<Action>(['read', 'readAll', 'export']);
const isRead = (p: Permission | undefined): boolean => typeof p === 'object' && READ_ACTIONS.has(p.action);

function headerOf(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s && s.trim() ? s.trim() : undefined;
}

/**
 * The decision for one request (docs/policy.md, "How a request is decided"): which Server governs, which route rule matches,
 * which authorization admits the client — and why, in words.
 *
 * 1. The port's governing Server (or default server) comes from the compiled model.
 * 2. Opaque and TLS ports carry no HTTP: authorization is per connection, against the Server's
 *    authorizations only. Admitted → `allow` (status null), else `refused`.
 * 3. Otherwise the route table picks a rule; none → `not-found` (404).
 * 4. The route's authorizations are its own plus all of the Server's (a route can never be
 *    stricter than its Server). The first that admits the client wins: route-level ones first,
 *    then the Server's, each group by name, `localhost` last. None → `deny` (403).
 */
import { matches } from '../selector/index.js';
import type { Labels } from '../selector/index.js';
import type { Authorization } from './compile/authorizations.js';
import type { PortPolicy } from './compile/model.js';
import { exceededLimit } from './compile/rate-limits.js';
import type { CompiledRateLimit } from './compile/rate-limits.js';
import { identityMatches } from './identity.js';
import type { IdentityMatcher } from './identity.js';
import { networksAdmit, parseAddress } from './networks.js';
import type { Address } from './networks.js';
import { HEADER_PREFIX, PARAM_PREFIX } from './resources/read-extension.js';
import type { PolicyRequest } from './routes/request.js';
import { whyNoMatch } from './routes/route-table.js';
import type { Considered, IgnoredPolicy, RouteHit } from './routes/route-table.js';
import type { Precedence } from './types.js';

/** The client side of a request. */
export interface Client {
  /** Parsed client address; see {@link parseAddress}. */
  readonly address: Address;
  /** The client's mTLS identity; undefined for an unauthenticated (plaintext) client. */
  readonly identity?: string;
}

export interface Decision {
  /**
   * `redirect`: the route's RequestRedirect filter answers 301/302 (see `redirect`);
   * `rate-limited`: an HTTPLocalRateLimitPolicy answers 429 (see `rateLimit`).
   */
  readonly decision: 'allow' | 'deny' | 'not-found' | 'refused' | 'redirect' | 'rate-limited';
  readonly status: 200 | 301 | 302 | 403 | 404 | 429 | null;
  readonly server: string;
  readonly route: string | null;
  readonly rule: number | null;
  readonly authorization: string | null;
  readonly timeout: string | null;
  readonly precedence: Precedence;
  /** Headers set or cleared by the winning HeaderRewritePolicy, when one applies. */
  readonly rewrite?: {
    readonly policy: string;
    readonly set: Readonly<Record<string, string>>;
    readonly clear: readonly string[];
  };
  /** Parameters of a matched path template. */
  readonly params?: Readonly<Record<string, string>>;
  /** The redirect answered instead of forwarding. */
  readonly redirect?: {
    readonly status: 301 | 302;
    readonly scheme?: string;
    readonly hostname?: string;
    readonly path?: string;
    readonly port?: number;
  };
  /** The rate limit that answered 429: policy, which budget, and its requests per second. */
  readonly rateLimit?: {
    readonly policy: string;
    readonly limit: 'total' | 'identity' | 'override';
    readonly requestsPerSecond: number;
  };
  readonly trace: readonly string[];
}

/** Options for {@link authorize}. */
export interface AuthorizeOptions {
  /** Route precedence. Default: `linkerd`. */
  precedence?: Precedence;
  /** Build the human trace. Default: true. The benchmark turns it off. */
  trace?: boolean;
  /**
   * Requests per second this client sends, for HTTPLocalRateLimitPolicy. Default: none (rate
   * limits are then named in the trace but never exceeded).
   */
  rate?: number;
  /** Requests per second all clients together send to the Server. Default: `rate`. */
  totalRate?: number;
}

/** Why `authz` does not admit `client`, or undefined when it does. */
export function authorizationFailure(authz: Authorization, client: Client): string | undefined {
  if (!networksAdmit(authz.networks, client.address)) {
    return `client address is outside ${authz.networkSpecs.map((n) => n.cidr + (n.except.length > 0 ? ` (except ${n.except.join(', ')})` : '')).join(', ')}`;
  }
  const authn = authz.authentication;
  if (authn === 'unauthenticated') return undefined;
  if (client.identity === undefined)
    return authn === 'tls'
      ? 'client has no TLS identity'
      : `client is unauthenticated; needs an identity matching ${describeMatchers(authn)}`;
  if (authn === 'tls') return undefined;
  for (const matcher of authn) {
    if (!identityMatches(matcher, client.identity))
      return `identity ${client.identity} does not match ${matcher.patterns.join(', ') || '(no identities)'}`;
  }
  return undefined;
}

function describeMatchers(matchers: readonly IdentityMatcher[]): string {
  return matchers.map((m) => m.patterns.join(', ') || '(no identities)').join(' and ');
}

/** Does `authz` admit `client`? HOT PATH: no allocation. */
export function admits(authz: Authorization, client: Client): boolean {
  if (!networksAdmit(authz.networks, client.address)) return false;
  const authn = authz.authentication;
  if (authn === 'unauthenticated') return true;
  if (client.identity === undefined) return false;
  if (authn === 'tls') return true;
  for (let i = 0; i < authn.length; i++)
    if (!identityMatches(authn[i] as IdentityMatcher, client.identity)) return false;
  return true;
}

function formatScore(score: readonly number[], precedence: Precedence): string {
  if (score.length === 5) {
    const [hk, hl, service, method, headers] = score;
    return `host=${hostWord(hk, hl)} service=${service} method=${method} headers=${headers}`;
  }
  if (precedence === 'linkerd') {
    const [hk, hl, path, headers, query, method] = score;
    return `host=${hostWord(hk, hl)} path=${path} headers=${headers} query=${query} method=${method === 1 ? 'yes' : 'no'}`;
  }
  const [hk, hl, kind, path, method, headers, query] = score;
  return `host=${hostWord(hk, hl)} path=${kind === 3 ? 'exact' : kind === 2 ? 'prefix' : 'pattern'}:${path} method=${method === 1 ? 'yes' : 'no'} headers=${headers} query=${query}`;
}

function hostWord(kind: number | undefined, labels: number | undefined): string {
  return kind === 2 ? 'exact' : kind === 1 ? `wildcard(${labels ?? 0})` : 'any';
}

/**
 * Decides one request on a compiled port policy. Deterministic; never throws on request input.
 */
export function authorize(
  policy: PortPolicy,
  request: PolicyRequest,
  client: Client,
  options: AuthorizeOptions = {},
): Decision {
  const precedence = options.precedence ?? 'linkerd';
  const trace: string[] = [];
  // Optional calls skip evaluating their arguments: without a trace, no string is built.
  // (A named function, not an arrow, so no closure is created per call when tracing is off.)
  const note: Note = options.trace === false ? undefined : trace.push.bind(trace);
  note?.(`server: ${policy.server} governs ${policy.pod}:${policy.port} — ${policy.serverReason}`);
  if (policy.protocol === 'opaque' || policy.protocol === 'TLS') {
    note?.(
      `protocol ${policy.protocol}: routes do not apply; the connection is authorized as a whole`,
    );
    const winner = firstAdmitting(policy.authorizations, client, note, 'server');
    if (note !== undefined) noteIgnored(policy.ignored, 'server', note);
    if (winner === undefined) note?.('no authorization admits the connection: refused');
    return decision(
      policy,
      precedence,
      winner === undefined ? 'refused' : 'allow',
      null,
      null,
      null,
      winner?.name ?? null,
      null,
      trace,
    );
  }
  const considered: Considered[] | undefined = note === undefined ? undefined : [];
  const hit = policy.table.find(request, precedence, considered);
  if (note !== undefined) {
    note(`precedence: ${precedence}`);
    if (considered !== undefined && considered.length > 0) {
      for (const c of considered)
        note(
          `route candidate: ${c.route} rule ${c.rule}: ${c.score === null ? 'no match' : formatScore(c.score, precedence)}`,
        );
    } else
      note(
        `none of the ${policy.table.routes.length} route(s) matches ${request.method} ${request.path}`,
      );
  }
  if (hit === null) {
    if (note !== undefined) {
      for (const route of policy.table.routes.slice(0, 20)) {
        note(`route ${route.name} does not match: ${whyNoMatch(route, request) ?? 'it matches'}`);
      }
      if (policy.table.routes.length > 20)
        note(`… and ${policy.table.routes.length - 20} more routes`);
    }
    note?.('no route matches: 404');
    return decision(policy, precedence, 'not-found', 404, null, null, null, null, trace);
  }
  const rule = hit.route.template === undefined ? hit.rule : hit.route.template.index;
  const params =
    hit.params !== undefined && Object.keys(hit.params).length > 0 ? hit.params : undefined;
  note?.(
    `route: ${hit.route.name}${hit.route.template === undefined ? ` rule ${hit.rule}` : ''} wins${
      params === undefined
        ? ''
        : ` with ${Object.entries(params)
            .map(([k, v]) => `${k}=${v}`)
            .join(', ')}`
    }`,
  );
  const timeout = pickTimeout(hit, note);
  const winner =
    firstAdmitting(hit.route.authorizations, client, note, 'route') ??
    firstAdmitting(policy.authorizations, client, note, 'server');
  if (note !== undefined) {
    noteIgnored(hit.route.ignored, 'route', note);
    noteIgnored(policy.ignored, 'server', note);
  }
  if (winner === undefined) {
    note?.('no authorization admits the client: 403');
    return decision(
      policy,
      precedence,
      'deny',
      403,
      hit.route.name,
      rule,
      null,
      timeout,
      trace,
      params,
    );
  }
  if (winner.audit === true) note?.(`audit: ${winner.name} allows the request and would flag it`);
  const filters = hit.route.rules[hit.rule]?.filters ?? [];
  if (note !== undefined) {
    for (const f of filters) {
      if (f.type !== 'RequestRedirect')
        note(
          `filter: ${f.type} sets ${JSON.stringify(f.set)}, adds ${JSON.stringify(f.add)}, removes ${JSON.stringify(f.remove)}`,
        );
    }
  }
  // The proxy applies filters after authorization: a redirect answers instead of forwarding,
  // before any rate limit is counted.
  const redirect = filters.find((f) => f.type === 'RequestRedirect');
  const changes =
    redirect !== undefined &&
    redirect.type === 'RequestRedirect' &&
    (redirect.scheme !== undefined ||
      redirect.hostname !== undefined ||
      redirect.path !== undefined ||
      redirect.port !== undefined);
  // Every outcome past this point is decided on the same route, rule and authorization.
  const routed = (
    kind: Decision['decision'],
    status: Decision['status'],
    rewrite?: Decision['rewrite'],
  ): Decision =>
    decision(
      policy,
      precedence,
      kind,
      status,
      hit.route.name,
      rule,
      winner.name,
      timeout,
      trace,
      params,
      rewrite,
    );
  if (redirect !== undefined && !changes)
    note?.('filter: RequestRedirect changes nothing, so the proxy forwards the request');
  if (redirect !== undefined && redirect.type === 'RequestRedirect' && changes) {
    const status = redirect.statusCode === 301 ? 301 : 302;
    note?.(
      `filter: RequestRedirect answers ${status}${redirect.scheme === undefined ? '' : ` to scheme ${redirect.scheme}`}${redirect.hostname === undefined ? '' : ` host ${redirect.hostname}`}${redirect.path === undefined ? '' : ` path ${redirect.path}`}${redirect.port === undefined ? '' : ` port ${redirect.port}`} instead of forwarding`,
    );
    const out = routed('redirect', status);
    return {
      ...out,
      redirect: {
        status,
        ...(redirect.scheme === undefined ? {} : { scheme: redirect.scheme }),
        ...(redirect.hostname === undefined ? {} : { hostname: redirect.hostname }),
        ...(redirect.path === undefined ? {} : { path: redirect.path }),
        ...(redirect.port === undefined ? {} : { port: redirect.port }),
      },
    };
  }
  if (policy.rateLimit !== undefined) {
    const limited = checkRateLimit(policy.rateLimit, client, options, note);
    if (limited !== undefined) {
      const out = routed('rate-limited', 429);
      return { ...out, rateLimit: limited };
    }
  }
  const rewrite = hit.route.rewrites.length === 0 ? undefined : rewriteFor(hit, request, note);
  return routed('allow', 200, rewrite);
}

function checkRateLimit(
  limit: CompiledRateLimit,
  client: Client,
  options: AuthorizeOptions,
  note: Note,
): Decision['rateLimit'] {
  const budgets = [
    limit.total === undefined ? '' : `total ${limit.total}/s`,
    limit.identity === undefined ? '' : `per identity ${limit.identity}/s`,
    limit.overrides.length === 0 ? '' : `${limit.overrides.length} override(s)`,
  ].filter((t) => t !== '');
  if (options.rate === undefined) {
    note?.(
      `rate limit: ${limit.name} applies (${budgets.join(', ')}); no request rate given, so it is not exceeded`,
    );
    return undefined;
  }
  const hit = exceededLimit(
    limit,
    client.identity,
    options.rate,
    options.totalRate ?? options.rate,
  );
  if (hit === undefined) {
    note?.(`rate limit: ${limit.name} (${budgets.join(', ')}) admits ${options.rate}/s`);
    return undefined;
  }
  note?.(
    `rate limit: ${limit.name} ${hit.limit} budget of ${hit.requestsPerSecond}/s is exceeded: 429`,
  );
  return { policy: limit.name, limit: hit.limit, requestsPerSecond: hit.requestsPerSecond };
}

/** Builds a Decision in one object literal (spreads are measurably slower on the hot path). */
function decision(
  policy: PortPolicy,
  precedence: Precedence,
  verdict: Decision['decision'],
  status: Decision['status'],
  route: string | null,
  rule: number | null,
  authorization: string | null,
  timeout: string | null,
  trace: readonly string[],
  params?: Readonly<Record<string, string>>,
  rewrite?: Decision['rewrite'],
): Decision {
  const out: { -readonly [K in keyof Decision]: Decision[K] } = {
    decision: verdict,
    status,
    server: policy.server,
    route,
    rule,
    authorization,
    timeout,
    precedence,
    trace,
  };
  if (params !== undefined) out.params = params;
  if (rewrite !== undefined) out.rewrite = rewrite;
  return out;
}

type Note = ((line: string) => void) | undefined;

function firstAdmitting(
  list: readonly Authorization[],
  client: Client,
  note: Note,
  level: string,
): Authorization | undefined {
  for (let i = 0; i < list.length; i++) {
    const authz = list[i] as Authorization;
    if (admits(authz, client)) {
      note?.(`authorization: ${authz.name} (${level}) admits the client`);
      return authz;
    }
    note?.(
      `authorization: ${authz.name} (${level}) does not admit: ${authorizationFailure(authz, client) ?? 'unknown'}`,
    );
  }
  return undefined;
}

/** Trace lines for dropped policies: they were never candidates, so say why they admit nobody. */
function noteIgnored(
  ignored: readonly IgnoredPolicy[] | undefined,
  level: string,
  note: (line: string) => void,
): void {
  for (const i of ignored ?? [])
    note(
      `authorization: ${i.name} (${level}) is ignored and admits nobody: ${i.reason} (Linkerd drops such a policy silently)`,
    );
}

function pickTimeout(hit: RouteHit, note: Note): string | null {
  const ruleTimeout = hit.route.rules[hit.rule]?.timeout;
  if (ruleTimeout === undefined && hit.route.timeouts.length === 0) return null;
  const candidates = [...hit.route.timeouts];
  if (ruleTimeout !== undefined) {
    candidates.push({
      source: `${hit.route.name} rule ${hit.rule}`,
      timeout: ruleTimeout,
      ms: durationMs(ruleTimeout),
    });
  }
  if (candidates.length === 0) return null;
  // The shortest applicable timeout wins; ties go to the first listed.
  const best = candidates.reduce((a, b) => (b.ms < a.ms ? b : a));
  note?.(
    `timeout: ${best.timeout} from ${best.source}${candidates.length > 1 ? ` (shortest of ${candidates.map((c) => c.timeout).join(', ')})` : ''}`,
  );
  return best.timeout;
}

function durationMs(text: string): number {
  const m = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(text);
  if (m === null) return Number.POSITIVE_INFINITY;
  return (
    Number(m[1] ?? 0) * 3_600_000 +
    Number(m[2] ?? 0) * 60_000 +
    Number(m[3] ?? 0) * 1000 +
    Number(m[4] ?? 0)
  );
}

/** The labels a rewrite rule's selector sees: route labels, template parameters, headers. */
export function requestLabels(hit: RouteHit, request: PolicyRequest): Labels {
  const labels: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(hit.route.labels)) labels[k] = v;
  if (hit.params !== undefined)
    for (const [k, v] of Object.entries(hit.params)) labels[`${PARAM_PREFIX}${k}`] = v;
  // A selector sees one value per label: the first value of a repeated header.
  for (const [k, v] of Object.entries(request.headers))
    if (v[0] !== undefined) labels[`${HEADER_PREFIX}${k}`] = v[0];
  return labels;
}

function rewriteFor(hit: RouteHit, request: PolicyRequest, note: Note): Decision['rewrite'] {
  if (hit.route.rewrites.length === 0) return undefined;
  const labels = requestLabels(hit, request);
  // Exclusive: the oldest policy (then name) with a matching rule applies; its matching rules
  // apply in list order, so a later rule overrides an earlier one.
  for (const policy of hit.route.rewrites) {
    const rules = policy.rules.filter((r) => matches(r.match, labels));
    if (rules.length === 0) continue;
    const set: Record<string, string> = Object.create(null);
    const clear: string[] = [];
    for (const rule of rules) {
      for (const [k, v] of Object.entries(rule.set)) {
        set[k] = v;
        const i = clear.indexOf(k);
        if (i >= 0) clear.splice(i, 1);
      }
      for (const k of rule.clear) {
        delete set[k];
        if (!clear.includes(k)) clear.push(k);
      }
    }
    note?.(`rewrite: headerrewritepolicy/${policy.meta.name} applies ${rules.length} rule(s)`);
    return { policy: `headerrewritepolicy/${policy.meta.name}`, set, clear };
  }
  return undefined;
}

/** Parses a client IP for {@link authorize}; undefined when malformed. */
export function parseClient(ip: string, identity?: string): Client | undefined {
  const address = parseAddress(ip);
  if (address === undefined) return undefined;
  return identity === undefined || identity === '' ? { address } : { address, identity };
}

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
import type { Authorization } from './compile/authorizations.js';
import type { PortPolicy } from './compile/model.js';
import { firstAdmitting, noteIgnored } from './authorize-client.js';
import type { Client, Note } from './authorize-client.js';
import {
  checkRateLimit,
  noteTelemetry,
  pickTimeout,
  redirectOf,
  rewriteFor,
} from './authorize-steps.js';
import type { Decision } from './decision.js';
import type { PolicyRequest } from './routes/request.js';
import { whyNoMatch } from './routes/route-table.js';
import type { Considered, RouteHit } from './routes/route-table.js';
import type { Precedence } from './types.js';

export type { Client } from './authorize-client.js';
export { parseClient } from './authorize-client.js';
export type { Decision } from './decision.js';

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
  const note: Note = options.trace === false ? undefined : trace.push.bind(trace);
  note?.(`server: ${policy.server} governs ${policy.pod}:${policy.port} — ${policy.serverReason}`);
  if (note !== undefined) noteHttpVersion(policy, note);
  if (policy.protocol === 'opaque' || policy.protocol === 'TLS')
    return authorizeConnection(policy, client, precedence, note, trace);
  const considered: Considered[] | undefined = note === undefined ? undefined : [];
  const hit = policy.table.find(request, precedence, considered);
  if (note !== undefined) noteCandidates(policy, request, precedence, considered, note);
  if (hit === null) {
    if (note !== undefined) noteNoRoute(policy, request, note);
    return decision(policy, precedence, 'not-found', 404, null, null, null, null, trace);
  }
  const rule = hit.route.template === undefined ? hit.rule : hit.route.template.index;
  const params =
    hit.params !== undefined && Object.keys(hit.params).length > 0 ? hit.params : undefined;
  if (note !== undefined) noteWinner(hit, params, note);
  const timeout = pickTimeout(hit, note);
  noteTelemetry(hit.route, note);
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
  const allowed = decision(
    policy,
    precedence,
    'allow',
    200,
    hit.route.name,
    rule,
    winner.name,
    timeout,
    trace,
    params,
  );
  return afterAdmission(allowed, policy, hit, winner, request, client, options, note);
}

/**
 * Which `http.linkerd.io/version` the routes carry, where it is not the Server's to say: on an
 * `unknown` Server with route-group routes (the only routes with derived labels), the version
 * given for the connection or none; elsewhere, a given version that the Server overrides.
 */
function noteHttpVersion(policy: PortPolicy, note: (line: string) => void): void {
  const given = policy.detectedVersion;
  if (policy.protocol !== 'unknown' || policy.serverObject === undefined) {
    if (given !== undefined)
      note(
        `http version: ${given} is not used: ${
          policy.protocol === 'opaque' || policy.protocol === 'TLS'
            ? `the port is ${policy.protocol}, without HTTP routes`
            : policy.serverObject === undefined
              ? 'no Server selects the port, so no route carries a version'
              : `proxyProtocol ${policy.protocol} fixes the version of its routes`
        }`,
      );
    return;
  }
  if (!policy.table.routes.some((r) => r.template !== undefined)) return;
  note(
    given === undefined
      ? 'http version: none given; the Server is unknown (its proxy detects the version per connection), so its route-group routes carry no http.linkerd.io/version and a class selecting one covers none of them (give the version with --http-version)'
      : `http version: ${given}, as given (the Server is unknown: its proxy detects the version per connection); its route-group routes carry http.linkerd.io/version: ${given}`,
  );
}

/** Opaque and TLS ports: no routes; the connection is authorized against the Server's list. */
function authorizeConnection(
  policy: PortPolicy,
  client: Client,
  precedence: Precedence,
  note: Note,
  trace: readonly string[],
): Decision {
  note?.(
    `protocol ${policy.protocol}: routes do not apply; the connection is authorized as a whole`,
  );
  const winner = firstAdmitting(policy.authorizations, client, note, 'server');
  if (note !== undefined) noteIgnored(policy.ignored, 'server', note);
  if (winner === undefined) note?.('no authorization admits the connection: refused');
  const verdict = winner === undefined ? 'refused' : 'allow';
  return decision(policy, precedence, verdict, null, null, null, winner?.name ?? null, null, trace);
}

/**
 * The admitted request's fate, in the proxy's order: a redirect answers before any rate limit is
 * counted; past the limit comes the header rewrite. `allowed` carries route, rule and winner.
 */
function afterAdmission(
  allowed: Decision,
  policy: PortPolicy,
  hit: RouteHit,
  winner: Authorization,
  request: PolicyRequest,
  client: Client,
  options: AuthorizeOptions,
  note: Note,
): Decision {
  if (winner.audit === true) note?.(`audit: ${winner.name} allows the request and would flag it`);
  const redirect = redirectOf(hit.route.rules[hit.rule]?.filters ?? [], note);
  if (redirect !== undefined)
    return { ...allowed, decision: 'redirect', status: redirect.status, redirect };
  if (policy.rateLimit !== undefined) {
    const limited = checkRateLimit(policy.rateLimit, client, options, note);
    if (limited !== undefined)
      return { ...allowed, decision: 'rate-limited', status: 429, rateLimit: limited };
  }
  if (hit.route.rewrites.length === 0) return allowed;
  const rewrite = rewriteFor(hit, request, note);
  return rewrite === undefined ? allowed : { ...allowed, rewrite };
}

function noteCandidates(
  policy: PortPolicy,
  request: PolicyRequest,
  precedence: Precedence,
  considered: readonly Considered[] | undefined,
  note: (line: string) => void,
): void {
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

function noteNoRoute(
  policy: PortPolicy,
  request: PolicyRequest,
  note: (line: string) => void,
): void {
  for (const route of policy.table.routes.slice(0, 20))
    note(`route ${route.name} does not match: ${whyNoMatch(route, request) ?? 'it matches'}`);
  if (policy.table.routes.length > 20) note(`… and ${policy.table.routes.length - 20} more routes`);
  note('no route matches: 404');
}

function noteWinner(
  hit: RouteHit,
  params: Readonly<Record<string, string>> | undefined,
  note: (line: string) => void,
): void {
  const withParams =
    params === undefined
      ? ''
      : ` with ${Object.entries(params)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')}`;
  note(
    `route: ${hit.route.name}${hit.route.template === undefined ? ` rule ${hit.rule}` : ''} wins${withParams}`,
  );
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
  return out;
}

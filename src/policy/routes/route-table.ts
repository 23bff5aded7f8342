/**
 * Route selection (docs/policy.md, "Route precedence"). For one Server, which route rule does a request hit?
 *
 * 1. Hosts first: a route without hostnames matches any host and ranks last; an exact hostname
 *    beats a wildcard; a longer wildcard (more labels) beats a shorter one.
 * 2. Then the match score. `linkerd` (the proxy's order): matched path length — Exact and
 *    PathPrefix are not told apart, `/` scores 1, a prefix matches whole segments and ignores
 *    trailing slashes, a regular expression must match the whole path and scores its length —
 *    then the number of header matchers, of query matchers, then whether a method is set.
 *    `gateway-api` (the Gateway API's order): Exact beats PathPrefix beats RegularExpression,
 *    longer paths first, then method, then headers, then query parameters.
 * 3. Ties: the oldest route, then its name, then rule order.
 *
 * Extension routes (path templates) score like a regular expression — the whole path — and
 * among themselves the most specific template wins (see `path-template.ts`).
 */
import type { Labels } from '../../selector/index.js';
import type { Authorization } from '../compile/authorizations.js';
import type { RouteTelemetry } from '../compile/telemetry.js';
import type { Template } from '../path-template.js';
import { TemplateRouter, compareSpecificity, matchTemplate } from '../path-template.js';
import type { TemplateHit } from '../path-template.js';
import type {
  HeaderRewritePolicy,
  Location,
  Precedence,
  RouteMatchSpec,
  RouteRule,
} from '../types.js';
import { packScore, packable, packableRequest } from './packed-score.js';
import { PrefixTrie } from './prefix-trie.js';
import type { PolicyRequest } from './request.js';

export type RouteKind =
  'HTTPRoute' | 'GRPCRoute' | 'default' | 'probe' | 'HttpRouteGroup' | 'GrpcService';

/** A timeout that applies to a route, with where it came from. */
export interface AppliedTimeout {
  readonly source: string;
  readonly timeout: string;
  readonly ms: number;
}

export interface CompiledRoute {
  /** HTTPRoute/GRPCRoute name, `default`, `probe`, or `group:<group>` for extension routes. */
  readonly name: string;
  readonly kind: RouteKind;
  readonly created: string;
  readonly hostnames: readonly string[];
  readonly rules: readonly RouteRule[];
  /** Route labels: metadata labels, or for extension routes the derived and declared labels. */
  readonly labels: Labels;
  /** Route-level authorizations (the Server's apply too). */
  readonly authorizations: readonly Authorization[];
  /**
   * Route-level AuthorizationPolicies dropped for a missing or invalid authentication: they
   * admit nobody, and the trace says so (the "why 403?" Linkerd answers nowhere). Default: none.
   */
  readonly ignored?: readonly IgnoredPolicy[];
  readonly timeouts: readonly AppliedTimeout[];
  /** Exclusive rewrite policies, oldest first. */
  readonly rewrites: readonly HeaderRewritePolicy[];
  /** What TelemetryPolicies record for the route. Default: nothing per route. */
  readonly telemetry?: RouteTelemetry;
  /** Extension routes: the template and methods (empty: any). */
  readonly template?: {
    readonly template: Template;
    readonly methods: readonly string[];
    /** The group route's header and query matches; all must hold. Default: none. */
    readonly headers?: RouteMatchSpec['headers'];
    readonly queryParams?: RouteMatchSpec['queryParams'];
    readonly binding: string;
    readonly group: string;
    readonly index: number;
  };
  readonly at?: Location;
}

/** An AuthorizationPolicy that targets something but was dropped (fail closed), and why. */
export interface IgnoredPolicy {
  /** `authorizationpolicy/<name>`. */
  readonly name: string;
  /** e.g. `MeshTLSAuthentication ns/clients does not exist`. */
  readonly reason: string;
}

/** The winning route rule for a request. */
export interface RouteHit {
  readonly route: CompiledRoute;
  readonly rule: number;
  readonly match: number;
  readonly score: readonly number[];
  readonly params?: Readonly<Record<string, string>>;
}

/** A winning route rule without its score (see {@link RouteTable.findRule}). */
export interface RuleRef {
  readonly route: CompiledRoute;
  readonly rule: number;
  readonly match: number;
  /** The match's position in the table, from 0: callers keep what they derive from it by it. */
  readonly id: number;
}

interface Entry extends RuleRef {
  readonly route: CompiledRoute;
  readonly order: number;
  readonly rule: number;
  readonly match: number;
  readonly spec: RouteMatchSpec;
  /** No hostnames, header or query matchers, not gRPC: scored by method and path alone. */
  readonly plain: boolean;
  /**
   * `spec.method`, here too: specs come in several shapes (inbound and outbound build them
   * apart), entries in one, so the hot loop's read stays monomorphic.
   */
  readonly method: string | undefined;
}

/** Path score kinds for gateway-api precedence. */
const KIND_EXACT = 3;
const KIND_PREFIX = 2;
const KIND_PATTERN = 1;

/** Length of `path` matched by `spec.path`, or -1. Linkerd's proxy rules (see the module doc). */
export function pathMatchLength(spec: RouteMatchSpec, path: string): number {
  if (spec.grpc !== undefined) {
    const lengths = grpcMatch(spec, path);
    return lengths === undefined ? -1 : lengths[0] + lengths[1];
  }
  const p = spec.path;
  if (p.type === 'Exact') return p.value === path ? p.value.length : -1;
  if (p.type === 'RegularExpression') {
    // Leftmost-first search, then require that the match spans the whole path (what the proxy
    // does): `/a|/ab` does not match `/ab`.
    return p.regex.spans(path) ? path.length : -1;
  }
  if (p.value === '/') return 1;
  const prefix = trimSlashes(p.value);
  const trimmed = trimSlashes(path);
  if (!trimmed.startsWith(prefix)) return -1;
  return trimmed.length === prefix.length || trimmed.charCodeAt(prefix.length) === 47
    ? prefix.length
    : -1;
}

/**
 * The proxy's gRPC method match: the path is `/<service>/<method>[/…]`; a set service or method
 * must equal its segment. Returns the matched service and method lengths, or undefined. A rule
 * written without matches (`PathPrefix /`) matches every request, scoring zero.
 */
export function grpcMatch(spec: RouteMatchSpec, path: string): [number, number] | undefined {
  if (spec.path.type === 'PathPrefix') return [0, 0];
  const rpc = spec.grpc ?? {};
  if (path.charCodeAt(0) !== 47) return undefined;
  const slash = path.indexOf('/', 1);
  if (slash < 0) return undefined; // no method segment
  const end = path.indexOf('/', slash + 1);
  const service = path.slice(1, slash);
  const method = path.slice(slash + 1, end < 0 ? path.length : end);
  if (rpc.service !== undefined && rpc.service !== service) return undefined;
  if (rpc.method !== undefined && rpc.method !== method) return undefined;
  return [rpc.service?.length ?? 0, rpc.method?.length ?? 0];
}

function trimSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 47) end--;
  return end === text.length ? text : text.slice(0, end);
}

const NO_HOSTNAMES: readonly [number, number] = Object.freeze([0, 0] as [number, number]);
const EXACT_HOST: readonly [number, number] = Object.freeze([2, 0] as [number, number]);

/** Host rank: [kind, labels]: exact [2, 0], wildcard [1, labels of the suffix], none [0, 0]; undefined: no match. */
export function hostRank(
  hostnames: readonly string[],
  host: string | undefined,
): readonly [number, number] | undefined {
  if (hostnames.length === 0) return NO_HOSTNAMES;
  if (host === undefined) return undefined;
  // As the proxy: one trailing dot on the request host is ignored, unless the route's
  // hostname ends with a dot itself.
  const bare = host.endsWith('.') ? host.slice(0, -1) : host;
  let best: [number, number] | undefined;
  for (const name of hostnames) {
    const candidate = name.endsWith('.') ? host : bare;
    if (name.startsWith('*.')) {
      const suffix = name.slice(1);
      if (candidate.length > suffix.length && candidate.endsWith(suffix)) {
        const labels = suffix.split('.').length - 1;
        if (best === undefined || (best[0] === 1 && best[1] < labels)) best = [1, labels];
      }
    } else if (name === candidate) return EXACT_HOST;
  }
  return best;
}

/** Every matcher must hold for some value of its name (headers and query parameters repeat). */
function valuesMatch(
  matchers: RouteMatchSpec['headers'],
  values: Readonly<Record<string, readonly string[]>>,
): boolean {
  for (let i = 0; i < matchers.length; i++) {
    const m = matchers[i] as RouteMatchSpec['headers'][number];
    const actual = values[m.name];
    if (actual === undefined) return false;
    let ok = false;
    for (let j = 0; j < actual.length && !ok; j++) {
      const value = actual[j] as string;
      ok = m.type === 'Exact' ? value === m.value : m.regex.spans(value);
    }
    if (!ok) return false;
  }
  return true;
}

/** Scores one match against a request; undefined when it does not match. */
export function scoreMatch(
  spec: RouteMatchSpec,
  request: PolicyRequest,
  host: readonly [number, number],
  precedence: Precedence,
): number[] | undefined {
  if (spec.method !== undefined && spec.method !== request.method) return undefined;
  if (spec.grpc !== undefined) {
    // The proxy's gRPC order: service length, then method length, then header matchers.
    const rpc = grpcMatch(spec, request.path);
    if (rpc === undefined || !valuesMatch(spec.headers, request.headers)) return undefined;
    return [host[0], host[1], rpc[0], rpc[1], spec.headers.length];
  }
  const length = pathMatchLength(spec, request.path);
  if (length < 0) return undefined;
  if (!valuesMatch(spec.headers, request.headers)) return undefined;
  if (!valuesMatch(spec.queryParams, request.query)) return undefined;
  const method = spec.method === undefined ? 0 : 1;
  if (precedence === 'linkerd')
    return [host[0], host[1], length, spec.headers.length, spec.queryParams.length, method];
  const kind =
    spec.path.type === 'Exact'
      ? KIND_EXACT
      : spec.path.type === 'PathPrefix'
        ? KIND_PREFIX
        : KIND_PATTERN;
  return [host[0], host[1], kind, length, method, spec.headers.length, spec.queryParams.length];
}

function templateScore(
  request: PolicyRequest,
  template: NonNullable<CompiledRoute['template']>,
  precedence: Precedence,
): number[] {
  const method = template.methods.length === 0 ? 0 : 1;
  const headers = template.headers?.length ?? 0;
  const query = template.queryParams?.length ?? 0;
  if (precedence === 'linkerd') return [0, 0, request.path.length, headers, query, method];
  return [0, 0, KIND_PATTERN, request.path.length, method, headers, query];
}

/** Do the group route's header and query matches hold for the request? */
function templateValuesMatch(
  template: NonNullable<CompiledRoute['template']>,
  request: PolicyRequest,
): boolean {
  return (
    (template.headers === undefined || valuesMatch(template.headers, request.headers)) &&
    (template.queryParams === undefined || valuesMatch(template.queryParams, request.query))
  );
}

/**
 * Why a route does not match a request, in words (for 404 traces); undefined when it matches.
 * Checks in the proxy's order: host, then per match method, path, headers, query.
 */
export function whyNoMatch(route: CompiledRoute, request: PolicyRequest): string | undefined {
  if (hostRank(route.hostnames, request.host) === undefined) {
    return `host ${request.host ?? '(none)'} is not one of ${route.hostnames.join(', ')}`;
  }
  if (route.template !== undefined) {
    const { template, methods, headers = [], queryParams = [] } = route.template;
    if (methods.length > 0 && !methods.includes(request.method))
      return `method ${request.method} is not ${methods.join('/')}`;
    if (matchTemplate(template, request.path) === undefined)
      return `path ${request.path} does not fit the template ${template.text}`;
    if (!valuesMatch(headers, request.headers))
      return `headers do not match ${headers.map((h) => `${h.name}=${h.value}`).join(', ')}`;
    if (!valuesMatch(queryParams, request.query))
      return `query does not match ${queryParams.map((h) => `${h.name}=${h.value}`).join(', ')}`;
    return undefined;
  }
  const reasons: string[] = [];
  for (const rule of route.rules) {
    for (const m of rule.matches) {
      if (m.method !== undefined && m.method !== request.method)
        reasons.push(`method ${request.method} is not ${m.method}`);
      else if (m.grpc !== undefined && pathMatchLength(m, request.path) < 0)
        reasons.push(
          `path ${request.path} is not /${m.grpc.service ?? '<service>'}/${m.grpc.method ?? '<method>'}`,
        );
      else if (pathMatchLength(m, request.path) < 0)
        reasons.push(`path ${request.path} does not match ${m.path.type} ${m.path.value}`);
      else if (!valuesMatch(m.headers, request.headers))
        reasons.push(
          `headers do not match ${m.headers.map((h) => `${h.name}=${h.value}`).join(', ')}`,
        );
      else if (!valuesMatch(m.queryParams, request.query))
        reasons.push(
          `query does not match ${m.queryParams.map((h) => `${h.name}=${h.value}`).join(', ')}`,
        );
      else return undefined;
    }
  }
  return [...new Set(reasons)].join('; ');
}

/** Lexicographic comparison of two scores. */
export function compareScores(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/** Tie order of routes: oldest first (no timestamp counts as newest), then name. */
export function compareRoutes(
  a: { created: string; name: string },
  b: { created: string; name: string },
): number {
  if (a.created !== b.created) {
    if (a.created === '') return 1;
    if (b.created === '') return -1;
    return a.created < b.created ? -1 : 1;
  }
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** One considered candidate, for traces. */
export interface Considered {
  readonly route: string;
  readonly rule: number;
  readonly score: readonly number[] | null;
}

/**
 * The routes of one Server, indexed for lookup. Prefixes (trailing slashes trimmed) and Exact
 * paths sit in one radix tree a request walks once (`prefix-trie.ts`; Exact paths it cannot
 * see in a map), templates in a segment trie; only regular expressions are scanned.
 * {@link RouteTable.scan} is the naive reference.
 */
export class RouteTable {
  readonly routes: readonly CompiledRoute[];
  private readonly entries: Entry[] = [];
  private readonly exact = new Map<string, Entry[]>();
  private readonly prefix = new PrefixTrie<Entry>();
  /** PathPrefix `/` (every request) and prefixes that trim to nothing (`//`). */
  private readonly rootPrefix: Entry[] = [];
  private readonly patterns: Entry[] = [];
  private readonly orders = new Map<CompiledRoute, number>();
  private readonly templates = new TemplateRouter<{ route: CompiledRoute; order: number }>();
  private readonly templateRoutes: { route: CompiledRoute; order: number }[] = [];
  /** Some template route has header or query matches: `find` may need the slow path. */
  private constrained = false;
  /** Every match's score fits `packed-score.ts`: `find` compares numbers, not arrays. */
  private readonly packable: boolean;
  /** `findRule`'s lookup state, reused: a lookup runs to its end before the next begins. */
  private readonly scratch: Best;

  constructor(routes: readonly CompiledRoute[]) {
    this.routes = [...routes].sort(compareRoutes);
    this.routes.forEach((route, order) => {
      this.orders.set(route, order);
      if (route.template !== undefined) {
        const value = { route, order };
        this.templates.add(route.template.template, route.template.methods, value);
        if ((route.template.headers?.length ?? 0) + (route.template.queryParams?.length ?? 0) > 0)
          this.constrained = true;
        this.templateRoutes.push(value);
        return;
      }
      route.rules.forEach((rule, r) =>
        rule.matches.forEach((spec, m) => {
          const plain =
            route.hostnames.length === 0 &&
            spec.grpc === undefined &&
            spec.headers.length === 0 &&
            spec.queryParams.length === 0;
          const id = this.entries.length;
          const method = spec.method;
          const entry: Entry = { route, order, rule: r, match: m, spec, id, plain, method };
          this.entries.push(entry);
          if (spec.grpc !== undefined) this.patterns.push(entry);
          else if (spec.path.type === 'Exact') {
            // Most Exact paths ride the prefix walk; the rest (a trailing slash, no leading
            // one) stay in the map, which only paths of that shape probe.
            const value = spec.path.value;
            if (probesExact(value)) push(this.exact, value, entry);
            else this.prefix.addExact(value, entry);
          } else if (spec.path.type === 'PathPrefix') {
            const trimmed = spec.path.value === '/' ? '' : trimSlashes(spec.path.value);
            if (trimmed === '') this.rootPrefix.push(entry);
            else this.prefix.add(trimmed, entry);
          } else this.patterns.push(entry);
        }),
      );
    });
    this.packable = packable(
      this.entries.map((e) => e.spec),
      this.routes.map((r) => r.hostnames),
    );
    this.scratch = {
      entry: undefined,
      score: undefined,
      packed: -1,
      fast: true,
      request: undefined as unknown as PolicyRequest,
      precedence: 'linkerd',
      considered: undefined,
    };
  }

  /**
   * The rule `find` picks with Linkerd's precedence, without its score and with nothing
   * allocated: for callers that need neither (outbound routing without a trace). Undefined
   * when the answer needs `find` itself: templates, or scores that do not pack.
   */
  findRule(request: PolicyRequest): RuleRef | null | undefined {
    if (!this.packable || this.templateRoutes.length > 0 || !packableRequest(request))
      return undefined;
    const state = this.scratch;
    state.entry = undefined;
    state.packed = -1;
    state.request = request;
    const path = request.path;
    const whole = !probesExact(path);
    const exact = whole ? undefined : this.exact.get(path);
    if (exact !== undefined) considerQuick(state, exact, path.length);
    if (this.rootPrefix.length > 0) considerQuick(state, this.rootPrefix, -1);
    this.prefix.forEachMatch(whole ? path : trimSlashes(path), whole, state, considerQuick);
    if (this.patterns.length > 0) considerQuick(state, this.patterns, -1);
    const entry = state.entry;
    state.entry = undefined;
    state.request = undefined as unknown as PolicyRequest;
    return entry ?? null;
  }

  /**
   * The best route rule for `request`, or null (404). With `considered`, every matching
   * candidate is appended with its score. Deterministic; never throws.
   */
  find(request: PolicyRequest, precedence: Precedence, considered?: Considered[]): RouteHit | null {
    // One holder per lookup instead of a closure: cheaper, and no per-call function object.
    const fast =
      this.packable &&
      precedence === 'linkerd' &&
      considered === undefined &&
      packableRequest(request);
    const state: Best = {
      entry: undefined,
      score: undefined,
      packed: -1,
      fast,
      request,
      precedence,
      considered,
    };
    const path = request.path;
    const whole = !probesExact(path);
    const exact = whole ? undefined : this.exact.get(path);
    if (exact !== undefined) consider(state, exact, path.length);
    if (this.rootPrefix.length > 0) consider(state, this.rootPrefix);
    this.prefix.forEachMatch(whole ? path : trimSlashes(path), whole, state, consider);
    if (this.patterns.length > 0) consider(state, this.patterns);
    if (fast && state.entry !== undefined) {
      // Only the winner's score is built as an array.
      const host = hostRank(state.entry.route.hostnames, request.host) as readonly [number, number];
      state.score = scoreMatch(state.entry.spec, request, host, precedence);
    }
    const best =
      state.entry === undefined || state.score === undefined
        ? undefined
        : { entry: state.entry, score: state.score };
    let hit: RouteHit | null =
      best === undefined
        ? null
        : {
            route: best.entry.route,
            rule: best.entry.rule,
            match: best.entry.match,
            score: best.score,
          };
    if (this.templateRoutes.length > 0) {
      const t = this.findTemplate(request);
      if (t !== null) {
        const score = templateScore(
          request,
          t.value.route.template as NonNullable<CompiledRoute['template']>,
          precedence,
        );
        considered?.push({
          route: t.value.route.name,
          rule: t.value.route.template?.index ?? 0,
          score,
        });
        const order = t.value.order;
        if (
          hit === null ||
          compareScores(score, hit.score) > 0 ||
          (compareScores(score, hit.score) === 0 && order < (this.orders.get(hit.route) ?? 0))
        ) {
          hit = { route: t.value.route, rule: 0, match: 0, score, params: t.params };
        }
      }
    }
    return hit;
  }

  /**
   * The most specific template route for the request whose header and query matches hold.
   * The trie answers by method and path alone; when its answer's header or query matches fail
   * (only group routes with such matches can), the template routes are scanned instead.
   */
  private findTemplate(
    request: PolicyRequest,
  ): TemplateHit<{ route: CompiledRoute; order: number }> | null {
    const t = this.templates.find(request.method, request.path);
    if (t === null || !this.constrained) return t;
    if (
      templateValuesMatch(t.value.route.template as NonNullable<CompiledRoute['template']>, request)
    )
      return t;
    let best: TemplateHit<{ route: CompiledRoute; order: number }> | null = null;
    for (const value of this.templateRoutes) {
      const template = value.route.template as NonNullable<CompiledRoute['template']>;
      if (template.methods.length > 0 && !template.methods.includes(request.method)) continue;
      const params = matchTemplate(template.template, request.path);
      if (params === undefined || !templateValuesMatch(template, request)) continue;
      if (best === null || compareSpecificity(template.template, best.template) < 0)
        best = { value, template: template.template, params };
    }
    return best;
  }

  /**
   * The naive reference for HTTPRoute rules: every match of every route scored in order.
   * Templates have their own reference (`matchTemplate` in `path-template.ts`).
   */
  scan(request: PolicyRequest, precedence: Precedence): RouteHit | null {
    let best: RouteHit | undefined;
    let bestOrder = 0;
    this.routes.forEach((route, order) => {
      if (route.template !== undefined) return;
      route.rules.forEach((rule, r) =>
        rule.matches.forEach((spec, m) => {
          const host = hostRank(route.hostnames, request.host);
          if (host === undefined) return;
          const score = scoreMatch(spec, request, host, precedence);
          if (score === undefined) return;
          const c = best === undefined ? 1 : compareScores(score, best.score);
          if (
            c > 0 ||
            (c === 0 &&
              best !== undefined &&
              (order < bestOrder ||
                (order === bestOrder && (r < best.rule || (r === best.rule && m < best.match)))))
          ) {
            best = { route, rule: r, match: m, score };
            bestOrder = order;
          }
        }),
      );
    });
    return best ?? null;
  }
}

interface Best {
  entry: Entry | undefined;
  score: number[] | undefined;
  /** Packed mode (`packed-score.ts`): the best candidate's packed score; -1 before any. */
  packed: number;
  readonly fast: boolean;
  request: PolicyRequest;
  readonly precedence: Precedence;
  readonly considered: Considered[] | undefined;
}

/**
 * Scores every entry of `list` and keeps the best in `state`. `matched`: the path length the
 * entries are already known to match (exact and prefix lookups), or -1.
 */
function consider(state: Best, list: readonly Entry[], matched = -1): void {
  for (let i = 0; i < list.length; i++) {
    const entry = list[i] as Entry;
    const host = hostRank(entry.route.hostnames, state.request.host);
    if (host === undefined) continue;
    if (state.fast) {
      considerPacked(state, entry, host, matched);
      continue;
    }
    const score = scoreMatch(entry.spec, state.request, host, state.precedence);
    if (score === undefined) continue;
    state.considered?.push({ route: entry.route.name, rule: entry.rule, score });
    if (
      state.entry === undefined ||
      state.score === undefined ||
      better(score, entry, state.score, state.entry)
    ) {
      state.entry = entry;
      state.score = score;
    }
  }
}

/**
 * `consider` in packed mode for `findRule`: a plain entry (most are) is scored inline from its
 * method and path; the others as `consider` scores them.
 */
function considerQuick(state: Best, list: readonly Entry[], matched: number): void {
  const request = state.request;
  for (let i = 0; i < list.length; i++) {
    const entry = list[i] as Entry;
    if (!entry.plain) {
      const host = hostRank(entry.route.hostnames, request.host);
      if (host !== undefined) considerPacked(state, entry, host, matched);
      continue;
    }
    const method = entry.method;
    if (method !== undefined && method !== request.method) continue;
    const length = matched >= 0 ? matched : pathMatchLength(entry.spec, request.path);
    if (length < 0) continue;
    const packed = packScore(0, 0, length, 0, 0, method === undefined ? 0 : 1);
    const best = state.entry;
    if (
      best === undefined ||
      packed > state.packed ||
      (packed === state.packed && earlier(entry, best))
    ) {
      state.entry = entry;
      state.packed = packed;
    }
  }
}

/** Tie order among equal scores: route order, then rule, then match. */
function earlier(entry: Entry, best: Entry): boolean {
  return entry.order !== best.order
    ? entry.order < best.order
    : entry.rule !== best.rule
      ? entry.rule < best.rule
      : entry.match < best.match;
}

/** `scoreMatch` for `linkerd` precedence, packed: the same order with no array per candidate. */
function considerPacked(
  state: Best,
  entry: Entry,
  host: readonly [number, number],
  matched: number,
): void {
  const spec = entry.spec;
  const request = state.request;
  if (spec.method !== undefined && spec.method !== request.method) return;
  const length = matched >= 0 ? matched : pathMatchLength(spec, request.path);
  if (length < 0) return;
  if (!valuesMatch(spec.headers, request.headers)) return;
  if (!valuesMatch(spec.queryParams, request.query)) return;
  const packed = packScore(
    host[0],
    host[1],
    length,
    spec.headers.length,
    spec.queryParams.length,
    spec.method === undefined ? 0 : 1,
  );
  const best = state.entry;
  if (
    best === undefined ||
    packed > state.packed ||
    (packed === state.packed &&
      (entry.order !== best.order
        ? entry.order < best.order
        : entry.rule !== best.rule
          ? entry.rule < best.rule
          : entry.match < best.match))
  ) {
    state.entry = entry;
    state.packed = packed;
  }
}

function better(score: number[], entry: Entry, bestScore: number[], bestEntry: Entry): boolean {
  const c = compareScores(score, bestScore);
  if (c !== 0) return c > 0;
  if (entry.order !== bestEntry.order) return entry.order < bestEntry.order;
  if (entry.rule !== bestEntry.rule) return entry.rule < bestEntry.rule;
  return entry.match < bestEntry.match;
}

/**
 * Does an Exact path (or a request path) sit outside the prefix walk: no leading `/`, or a
 * trailing one (the walk sees paths with trailing slashes trimmed)?
 */
function probesExact(path: string): boolean {
  return path.charCodeAt(0) !== 47 || path.charCodeAt(path.length - 1) === 47;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

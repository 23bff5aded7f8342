/**
 * The answer `authorize` gives for one request, and its JSON shape (docs/policy.md, "Output
 * shapes"). The CLI and the report print what {@link decisionJson} returns, so a field added to
 * the decision reaches `--json` without a second list to keep in step.
 */
import type { Precedence } from './types.js';

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

/** The JSON form of a {@link Decision}: every field it carries, optional ones only when set. */
export interface DecisionJson {
  readonly decision: Decision['decision'];
  readonly status: Decision['status'];
  readonly server: string;
  readonly route: string | null;
  readonly rule: number | null;
  readonly authorization: string | null;
  readonly timeout: string | null;
  readonly precedence: Precedence;
  readonly params?: Decision['params'];
  readonly rewrite?: Decision['rewrite'];
  readonly redirect?: Decision['redirect'];
  readonly rateLimit?: Decision['rateLimit'];
  readonly trace: readonly string[];
}

/** The decision as `authorize --json` prints it (key order fixed: golden files depend on it). */
export function decisionJson(d: Decision): DecisionJson {
  return {
    decision: d.decision,
    status: d.status,
    server: d.server,
    route: d.route,
    rule: d.rule,
    authorization: d.authorization,
    timeout: d.timeout,
    precedence: d.precedence,
    ...(d.params === undefined ? {} : { params: d.params }),
    ...(d.rewrite === undefined ? {} : { rewrite: d.rewrite }),
    ...(d.redirect === undefined ? {} : { redirect: d.redirect }),
    ...(d.rateLimit === undefined ? {} : { rateLimit: d.rateLimit }),
    trace: d.trace,
  };
}

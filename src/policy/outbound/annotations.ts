/**
 * Linkerd's outbound annotations, read as its policy controller reads them
 * (policy-controller/k8s/index/src/outbound/index.rs and index/{http,grpc}.rs):
 *
 * - `timeout.linkerd.io/{request,response,idle}`: durations.
 * - `retry.linkerd.io/{http,grpc,limit,timeout}`: retry conditions, a limit (default 1 once any
 *   retry annotation is set; 0 means unset) and a per-attempt timeout (0 means unset).
 * - `balancer.linkerd.io/failure-accrual` (`consecutive` or `unified`) with
 *   `…-consecutive-max-failures` (default 7), `…-consecutive-{min,max}-penalty` (1s, 60s),
 *   `…-consecutive-jitter-ratio` (0.5), and for `unified` the
 *   `balancer.alpha.linkerd.io/failure-accrual-success-rate-{threshold,window,min-requests}`.
 *
 * Durations are Linkerd's own form, not Go's: a whole number and one unit of `ms`, `s`, `m`,
 * `h` or `d` (a bare `0` is zero); fractions, negatives and bare numbers are refused.
 */
import type {
  Backoff,
  FailureAccrual,
  GrpcRetryCondition,
  OutboundConfig,
  OutboundTimeouts,
  RetryPolicy,
  StatusRange,
} from './types.js';
import { GRPC_RETRY_CONDITIONS } from './types.js';

type Annotations = Readonly<Record<string, string>>;
type Parsed<T> = { readonly value: T } | { readonly error: string };

const UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A Linkerd annotation duration in milliseconds. Never throws. */
export function parseLinkerdDuration(text: string): Parsed<number> {
  const s = text.trim();
  if (s.startsWith('-')) return { error: `duration value cannot be negative: '${s}'` };
  const match = /^([0-9.]*[0-9])([a-z]*)$/i.exec(s);
  if (match === null) return { error: `${JSON.stringify(s)} does not contain a duration value` };
  const [, magnitude = '', unit = ''] = match;
  if (magnitude.includes('.')) return { error: 'fractional values not supported' };
  if (!/^\d+$/.test(magnitude)) return { error: `${JSON.stringify(s)} is not a duration` };
  const n = BigInt(magnitude);
  if (unit === '' && n === 0n) return { value: 0 };
  if (unit === '')
    return { error: `missing duration unit; did you mean '${magnitude}s' or '${magnitude}ms'?` };
  const mul = UNITS[unit];
  if (mul === undefined)
    return {
      error: `invalid duration unit ${unit} (expected one of 'ms', 's', 'm', 'h', or 'd')`,
    };
  const ms = n * BigInt(mul);
  // Linkerd multiplies in u64 milliseconds; past that it refuses the value.
  if (ms > 18446744073709551615n)
    return { error: `timeout value ${s} overflows when converted to 'ms'` };
  return { value: Number(ms) };
}

/** Go's `strconv.ParseBool` tokens, as Linkerd's boolean annotations take them; absent is false. */
export function parseBoolAnnotation(value: string | undefined, key: string): Parsed<boolean> {
  if (value === undefined) return { value: false };
  const v = value.trim();
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(v)) return { value: false };
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v)) return { value: true };
  return {
    error: `unsupported ${key} value: '${v}' (expected a boolean such as 'true' or 'false')`,
  };
}

function unsigned(text: string, bits: 16 | 32): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n <= (bits === 16 ? 0xffff : 0xffffffff) ? n : undefined;
}

function durationAt(a: Annotations, key: string): Parsed<number | undefined> {
  const text = a[key];
  if (text === undefined) return { value: undefined };
  const parsed = parseLinkerdDuration(text);
  return 'error' in parsed ? { error: `invalid ${key} value: ${parsed.error}` } : parsed;
}

/** `timeout.linkerd.io/{request,response,idle}`. */
export function parseTimeouts(a: Annotations): Parsed<OutboundTimeouts> {
  const out: { request?: number; response?: number; idle?: number } = {};
  for (const name of ['response', 'request', 'idle'] as const) {
    const parsed = durationAt(a, `timeout.linkerd.io/${name}`);
    if ('error' in parsed) return parsed;
    if (parsed.value !== undefined) out[name] = parsed.value;
  }
  return { value: out };
}

function statusCode(text: string): number | undefined {
  const n = unsigned(text, 32);
  return n !== undefined && n >= 100 && n < 600 ? n : undefined;
}

function httpCondition(cond: string): StatusRange | undefined {
  const lower = cond.toLowerCase();
  if (lower === '5xx') return { min: 500, max: 599 };
  if (lower === 'gateway-error') return { min: 502, max: 504 };
  const code = statusCode(cond);
  if (code !== undefined) return { min: code, max: code };
  const dash = cond.indexOf('-');
  if (dash < 0) return undefined;
  const start = statusCode(cond.slice(0, dash));
  const end = statusCode(cond.slice(dash + 1));
  return start !== undefined && end !== undefined && start <= end
    ? { min: start, max: end }
    : undefined;
}

function grpcCondition(cond: string): GrpcRetryCondition | undefined {
  const lower = cond.toLowerCase();
  return GRPC_RETRY_CONDITIONS.find((c) => c === lower);
}

/** The shared part of both retry parsers: limit and timeout (0 of either means unset). */
function retryBudget(a: Annotations): Parsed<{ limit?: number; timeout?: number }> {
  const limitText = a['retry.linkerd.io/limit'];
  let limit: number | undefined;
  if (limitText !== undefined) {
    limit = unsigned(limitText, 16);
    if (limit === undefined)
      return { error: `invalid retry.linkerd.io/limit value: ${JSON.stringify(limitText)}` };
    if (limit === 0) limit = undefined;
  }
  const timeout = durationAt(a, 'retry.linkerd.io/timeout');
  if ('error' in timeout) return timeout;
  return {
    value: {
      ...(limit === undefined ? {} : { limit }),
      ...(timeout.value === undefined || timeout.value === 0 ? {} : { timeout: timeout.value }),
    },
  };
}

function parseRetry<C>(
  a: Annotations,
  key: string,
  condition: (text: string) => C | undefined,
  word: string,
): Parsed<RetryPolicy<C> | undefined> {
  const budget = retryBudget(a);
  if ('error' in budget) return budget;
  const text = a[key];
  let conditions: C[] | undefined;
  if (text !== undefined) {
    conditions = [];
    for (const part of text.split(',')) {
      const c = condition(part);
      if (c === undefined) return { error: `invalid ${word} retry condition: ${part}` };
      conditions.push(c);
    }
  }
  const { limit, timeout } = budget.value;
  if (limit === undefined && timeout === undefined && conditions === undefined)
    return { value: undefined };
  return {
    value: {
      limit: limit ?? 1,
      limitWritten: limit !== undefined,
      ...(timeout === undefined ? {} : { timeout }),
      ...(conditions === undefined ? {} : { conditions }),
    },
  };
}

/** `retry.linkerd.io/http` with the limit and timeout. */
export function parseHttpRetry(a: Annotations): Parsed<RetryPolicy<StatusRange> | undefined> {
  return parseRetry(a, 'retry.linkerd.io/http', httpCondition, 'HTTP');
}

/** `retry.linkerd.io/grpc` with the limit and timeout. */
export function parseGrpcRetry(
  a: Annotations,
): Parsed<RetryPolicy<GrpcRetryCondition> | undefined> {
  return parseRetry(a, 'retry.linkerd.io/grpc', grpcCondition, 'gRPC');
}

const ACCRUAL = 'balancer.linkerd.io/failure-accrual';
const CONSECUTIVE = 'balancer.linkerd.io/failure-accrual-consecutive';
const SUCCESS_RATE = 'balancer.alpha.linkerd.io/failure-accrual-success-rate';
/** The proxy's floor for the success-rate window and ceiling for min-requests. */
const MIN_SUCCESS_RATE_WINDOW = 10;
const MAX_SUCCESS_RATE_MIN_REQUESTS = 1_000_000;

function number(text: string | undefined, fallback: number, key: string): Parsed<number> {
  if (text === undefined) return { value: fallback };
  const t = text.trim();
  const n = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : NaN;
  return Number.isNaN(n)
    ? { error: `invalid ${key} value: ${JSON.stringify(text)}` }
    : { value: n };
}

function consecutiveParams(a: Annotations): Parsed<{ maxFailures: number; backoff: Backoff }> {
  const maxText = a[`${CONSECUTIVE}-max-failures`];
  const maxFailures = maxText === undefined ? 7 : unsigned(maxText.trim(), 32);
  if (maxFailures === undefined)
    return { error: `invalid ${CONSECUTIVE}-max-failures value: ${JSON.stringify(maxText)}` };
  const max = durationAt(a, `${CONSECUTIVE}-max-penalty`);
  if ('error' in max) return max;
  const min = durationAt(a, `${CONSECUTIVE}-min-penalty`);
  if ('error' in min) return min;
  const jitter = number(a[`${CONSECUTIVE}-jitter-ratio`], 0.5, `${CONSECUTIVE}-jitter-ratio`);
  if ('error' in jitter) return jitter;
  const maxPenalty = max.value ?? 60_000;
  const minPenalty = min.value ?? 1000;
  if (minPenalty > maxPenalty)
    return { error: `min_penalty (${minPenalty}ms) cannot exceed max_penalty (${maxPenalty}ms)` };
  if (maxPenalty <= 0) return { error: 'max_penalty cannot be zero' };
  if (jitter.value < 0) return { error: 'jitter cannot be negative' };
  if (jitter.value > 100) return { error: 'jitter cannot be greater than 100' };
  return { value: { maxFailures, backoff: { minPenalty, maxPenalty, jitter: jitter.value } } };
}

function successRateParams(
  a: Annotations,
): Parsed<{ threshold: number; window: number; minRequests: number }> {
  const threshold = number(a[`${SUCCESS_RATE}-threshold`], 0.8, `${SUCCESS_RATE}-threshold`);
  if ('error' in threshold) return threshold;
  if (threshold.value < 0 || threshold.value > 1)
    return {
      error: `success-rate threshold must be between 0.0 and 1.0, got ${threshold.value}`,
    };
  const window = durationAt(a, `${SUCCESS_RATE}-window`);
  if ('error' in window) return window;
  const windowMs = window.value ?? 10_000;
  if (windowMs <= 0) return { error: 'success-rate-window must be greater than zero' };
  // The proxy's bounds hold only while success-rate breaking is on (threshold above 0).
  const on = threshold.value !== 0;
  if (on && windowMs < MIN_SUCCESS_RATE_WINDOW)
    return { error: `success-rate-window must be at least 10ms, got ${windowMs}ms` };
  const minText = a[`${SUCCESS_RATE}-min-requests`];
  const minRequests = minText === undefined ? 5 : unsigned(minText.trim(), 32);
  if (minRequests === undefined)
    return { error: `invalid ${SUCCESS_RATE}-min-requests value: ${JSON.stringify(minText)}` };
  if (on && minRequests > MAX_SUCCESS_RATE_MIN_REQUESTS)
    return { error: `success-rate-min-requests cannot exceed 1000000, got ${minRequests}` };
  return { value: { threshold: threshold.value, window: windowMs, minRequests } };
}

/** `balancer.linkerd.io/failure-accrual` and its parameters; undefined without a mode. */
export function parseAccrual(a: Annotations): Parsed<FailureAccrual | undefined> {
  const mode = a[ACCRUAL];
  if (mode === undefined) return { value: undefined };
  if (mode !== 'consecutive' && mode !== 'unified')
    return { error: `unsupported failure accrual mode: ${mode}` };
  const consecutive = consecutiveParams(a);
  if ('error' in consecutive) return consecutive;
  if (mode === 'consecutive') return { value: { mode, ...consecutive.value } };
  const successRate = successRateParams(a);
  if ('error' in successRate) return successRate;
  return { value: { mode, ...consecutive.value, successRate: successRate.value } };
}

/**
 * The outbound config of a Service or EgressNetwork. Each annotation Linkerd cannot parse falls
 * back to its default (the index logs it and carries on), and is listed in `ignored`.
 */
export function parentConfig(a: Annotations): OutboundConfig {
  const ignored: { annotation: string; reason: string }[] = [];
  const pick = <T>(parsed: Parsed<T>, annotation: string, fallback: T): T => {
    if ('value' in parsed) return parsed.value;
    ignored.push({ annotation, reason: parsed.error });
    return fallback;
  };
  const timeouts = pick(parseTimeouts(a), 'timeout.linkerd.io/*', {});
  const httpRetry = pick(parseHttpRetry(a), 'retry.linkerd.io/http', undefined);
  const grpcRetry = pick(parseGrpcRetry(a), 'retry.linkerd.io/grpc', undefined);
  const failureAccrual = pick(parseAccrual(a), ACCRUAL, undefined);
  return {
    timeouts,
    ...(httpRetry === undefined ? {} : { httpRetry }),
    ...(grpcRetry === undefined ? {} : { grpcRetry }),
    ...(failureAccrual === undefined ? {} : { accrual: failureAccrual }),
    ignored,
  };
}

/**
 * The outbound config of a route with a Service or EgressNetwork parent. Linkerd's admission
 * refuses such a route when its retry or timeout annotations do not parse: the error is returned.
 */
export function routeConfig(
  a: Annotations,
  kind: 'HTTPRoute' | 'GRPCRoute',
): Parsed<OutboundConfig> {
  const timeouts = parseTimeouts(a);
  if ('error' in timeouts) return timeouts;
  if (kind === 'HTTPRoute') {
    const retry = parseHttpRetry(a);
    if ('error' in retry) return retry;
    return {
      value: {
        timeouts: timeouts.value,
        ...(retry.value === undefined ? {} : { httpRetry: retry.value }),
        ignored: [],
      },
    };
  }
  const retry = parseGrpcRetry(a);
  if ('error' in retry) return retry;
  return {
    value: {
      timeouts: timeouts.value,
      ...(retry.value === undefined ? {} : { grpcRetry: retry.value }),
      ignored: [],
    },
  };
}

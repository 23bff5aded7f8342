/**
 * The module's entry points over plain data: compile, decide, lint. Loading from disk lives in
 * `io/read-dir.ts`; these functions do no I/O.
 */
import { LabelwiseError } from '../base/errors.js';
import { authorize, parseClient } from './authorize.js';
import type { Decision } from './authorize.js';
import { PolicyModel } from './compile/model.js';
import type { HttpVersion } from './compile/route-labels.js';
import { lintModel } from './lint/index.js';
import { makeRequest } from './routes/request.js';
import { resolveSettings } from './settings.js';
import type { SettingsInput } from './settings.js';
import type { PolicyProblem, PolicyResources, Precedence } from './types.js';

/**
 * Compiles resources into the per-(pod, port) model. Pure; cheap up front (indexes only), each
 * (pod, port) is compiled on first use and cached.
 */
export function compilePolicy(
  resources: PolicyResources,
  settings: SettingsInput = {},
): PolicyModel {
  return new PolicyModel(resources, resolveSettings(settings));
}

/** A request to decide, as the CLI takes it. */
export interface DecideInput {
  /** `namespace/name` of the destination pod. */
  pod: string;
  port: number;
  /** Default: `GET`. */
  method?: string;
  /** Path, optionally with `?query`. */
  path: string;
  host?: string;
  headers?: readonly (readonly [string, string])[];
  /** The client's mTLS identity; absent for a plaintext client. */
  identity?: string;
  clientIp: string;
  /** Default: `linkerd`. */
  precedence?: Precedence;
  /** Build the human trace. Default: true. */
  trace?: boolean;
  /** Requests per second this client sends (HTTPLocalRateLimitPolicy). Default: not limited. */
  rate?: number;
  /** Requests per second of all clients together. Default: `rate`. */
  totalRate?: number;
  /**
   * The connection's HTTP version, for an `unknown` Server (whose proxy detects it per
   * connection): its route-group routes carry it as `http.linkerd.io/version`. Default: none,
   * so they carry no version.
   */
  httpVersion?: HttpVersion;
}

/**
 * Decides one request. Throws a LabelwiseError for an unknown pod (`POLICY_UNKNOWN_POD`; the
 * message says so when the pod is in the input but was rejected), a bad port
 * (`POLICY_INVALID_PORT`), a path that does not start with `/` (`POLICY_RELATIVE_PATH`) or a bad
 * client address (`POLICY_INVALID_CLIENT_IP`).
 */
export function decide(model: PolicyModel, input: DecideInput): Decision {
  const pod = model.podByRef(input.pod);
  if (!Number.isInteger(input.port) || input.port < 1 || input.port > 65535) {
    throw new LabelwiseError(
      'POLICY_INVALID_PORT',
      `port ${String(input.port)} must be an integer from 1 to 65535`,
      { source: { path: 'port' } },
    );
  }
  const question = input.path.indexOf('?');
  if (!(question < 0 ? input.path : input.path.slice(0, question)).startsWith('/')) {
    throw new LabelwiseError(
      'POLICY_RELATIVE_PATH',
      `request path ${JSON.stringify(input.path)} must be absolute (start with /)`,
      { source: { path: 'path' }, hint: 'write it like /books/12 or /search?q=x' },
    );
  }
  const client = parseClient(input.clientIp, input.identity);
  if (client === undefined) {
    throw new LabelwiseError(
      'POLICY_INVALID_CLIENT_IP',
      `client IP ${JSON.stringify(input.clientIp)} is not an IPv4 or IPv6 address`,
      { source: { path: 'client-ip' }, hint: 'write it like 10.1.2.3 or fd00::1' },
    );
  }
  const request = makeRequest({
    method: input.method ?? 'GET',
    path: input.path,
    ...(input.host === undefined ? {} : { host: input.host }),
    headers: input.headers ?? [],
  });
  return authorize(model.portPolicy(pod, input.port, input.httpVersion), request, client, {
    precedence: input.precedence ?? 'linkerd',
    trace: input.trace ?? true,
    ...(input.rate === undefined ? {} : { rate: input.rate }),
    ...(input.totalRate === undefined ? {} : { totalRate: input.totalRate }),
  });
}

/** Every lint finding of a compiled model, sorted. */
export function lintPolicy(model: PolicyModel): PolicyProblem[] {
  return lintModel(model);
}

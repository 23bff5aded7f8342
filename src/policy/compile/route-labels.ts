/**
 * The route labels the roadmap defines that depend on more than the route itself:
 * `http.linkerd.io/version` (from the Server's protocol) and `path.http.linkerd.io/<param>`
 * (from the template). They are set at compile time so that HttpRouteClass and GrpcServiceClass
 * selectors can use them; the path-parameter values become the matched values at request time.
 */
import { labelsFrom } from '../../selector/index.js';
import type { Labels } from '../../selector/index.js';
import type { Template } from '../path-template.js';
import { PARAM_PREFIX, VERSION_LABEL } from '../resources/read-extension.js';
import type { ProxyProtocol } from '../types.js';

/** The values of `http.linkerd.io/version`. */
export const HTTP_VERSIONS = ['HTTP/1.1', 'HTTP/2'] as const;
export type HttpVersion = (typeof HTTP_VERSIONS)[number];

/**
 * The HTTP version of a request on a Server of this protocol. An `HTTP/1`, `HTTP/2` or `gRPC`
 * Server fixes it; on an `unknown` Server the proxy detects it per connection, so it is the
 * `detected` one, and undefined when none is given. Undefined too where routes do not apply
 * (opaque, TLS).
 */
export function httpVersionOf(
  protocol: ProxyProtocol,
  detected?: HttpVersion,
): HttpVersion | undefined {
  if (protocol === 'HTTP/1') return 'HTTP/1.1';
  if (protocol === 'HTTP/2' || protocol === 'gRPC') return 'HTTP/2';
  return protocol === 'unknown' ? detected : undefined;
}

/**
 * A template's parameters as compile-time labels. The value is the segment as written
 * (`:book-id`, `*rest`): a class can select routes that take a parameter (Exists) or a
 * rest parameter rather than one segment (In), but never a request's value, which is only known
 * per request.
 */
export function paramLabels(template: Template): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const segment of template.segments) {
    if (segment.kind === 'param') out[`${PARAM_PREFIX}${segment.name}`] = `:${segment.name}`;
    else if (segment.kind === 'rest') out[`${PARAM_PREFIX}${segment.name}`] = `*${segment.name}`;
  }
  return out;
}

/**
 * `labels` with the version of `protocol` (on an `unknown` Server, the `detected` one) and, for
 * a template, its parameter labels.
 */
export function withDerivedLabels(
  labels: Labels,
  protocol: ProxyProtocol,
  template?: Template,
  detected?: HttpVersion,
): Labels {
  const version = httpVersionOf(protocol, detected);
  return labelsFrom({
    ...labels,
    ...(template === undefined ? {} : paramLabels(template)),
    ...(version === undefined ? {} : { [VERSION_LABEL]: version }),
  });
}

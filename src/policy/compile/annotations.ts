/** The pod annotations Linkerd's policy controller reads, with namespace inheritance. */
import type { Namespace, Pod } from '../types.js';

export const DEFAULT_POLICY_ANNOTATION = 'config.linkerd.io/default-inbound-policy';
export const REQUIRE_IDENTITY_ANNOTATION = 'config.linkerd.io/proxy-require-identity-inbound-ports';
export const OPAQUE_PORTS_ANNOTATION = 'config.linkerd.io/opaque-ports';

/**
 * The annotation's value on the pod, else on its namespace (the proxy injector copies
 * namespace `config.linkerd.io/*` annotations onto the pods it injects).
 */
export function inherited(
  pod: Pod,
  namespace: Namespace | undefined,
  key: string,
): { value: string; from: 'pod' | 'namespace' } | undefined {
  const own = pod.meta.annotations[key];
  if (typeof own === 'string') return { value: own, from: 'pod' };
  const ns = namespace?.meta.annotations[key];
  return typeof ns === 'string' ? { value: ns, from: 'namespace' } : undefined;
}

/** Parses a port list such as `8080,9000-9010`; undefined when malformed. */
export function parsePortList(text: string): ((port: number) => boolean) | undefined {
  const ranges: [number, number][] = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(item);
    if (m === null) return undefined;
    const low = Number(m[1]);
    const high = m[2] === undefined ? low : Number(m[2]);
    if (low < 1 || high > 65535 || low > high) return undefined;
    ranges.push([low, high]);
  }
  return (port) => ranges.some(([low, high]) => port >= low && port <= high);
}

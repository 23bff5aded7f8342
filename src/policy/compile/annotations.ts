/** The pod annotations Linkerd's policy controller reads, with namespace inheritance. */
import { objectName } from '../resources/read-context.js';
import { isDefaultPolicy } from '../settings.js';
import type { Namespace, Pod, PolicyProblem } from '../types.js';

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

/** Problems with the policy annotations a pod sees (its own or its namespace's). */
export function annotationProblems(pod: Pod, ns: Namespace | undefined): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const policy = inherited(pod, ns, DEFAULT_POLICY_ANNOTATION);
  const where = (from: 'pod' | 'namespace') => (from === 'pod' ? pod.meta : (ns?.meta ?? pod.meta));
  if (policy !== undefined && !isDefaultPolicy(policy.value)) {
    const meta = where(policy.from);
    problems.push({
      severity: 'error',
      code: 'POLICY_INVALID_ANNOTATION',
      object: objectName(meta),
      file: meta.at.file,
      line: meta.at.line,
      message: `${DEFAULT_POLICY_ANNOTATION}=${JSON.stringify(policy.value)} is not a default policy; the cluster default applies`,
    });
  }
  for (const name of [REQUIRE_IDENTITY_ANNOTATION, OPAQUE_PORTS_ANNOTATION]) {
    const value = inherited(pod, ns, name);
    if (value !== undefined && parsePortList(value.value) === undefined) {
      const meta = where(value.from);
      problems.push({
        severity: 'error',
        code: 'POLICY_INVALID_ANNOTATION',
        object: objectName(meta),
        file: meta.at.file,
        line: meta.at.line,
        message: `${name}=${JSON.stringify(value.value)} is not a port list such as 8080,9000-9010; it is ignored`,
      });
    }
  }
  return problems;
}

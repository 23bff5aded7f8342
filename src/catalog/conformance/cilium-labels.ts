/**
 * How Cilium sees an endpoint and reads a selector, as plain data for `src/selector`.
 *
 * Every label of an endpoint carries a source: pod labels become `k8s:<key>`, the namespace
 * becomes `k8s:io.kubernetes.pod.namespace`, each namespace label becomes
 * `k8s:io.cilium.k8s.namespace.labels.<key>`, and special identities are `reserved:<name>`
 * (pkg/k8s/apis/cilium.io/utils/utils.go, pkg/policy/api/entity.go). A selector key without a
 * source is an `any:` key, which matches the key from any source; since every label this model
 * derives from Kubernetes has the `k8s` source and reserved identities are only reached through
 * `reserved:` keys or entities, an `any:` key is read as the `k8s:` key. Pod labels that Cilium's
 * default label filter leaves out of the identity (pkg/labelsfilter/filter.go) are dropped, so a
 * selector on them matches nothing, as in the real datapath.
 */
import {
  EVERYTHING,
  fromLabelSelector,
  labelsFrom,
  requirement,
  selectorOf,
} from '../../selector/index.js';
import type { Labels, Selector } from '../../selector/index.js';
import { asArray, asRecord } from './model.js';

export const NAMESPACE_KEY = 'k8s:io.kubernetes.pod.namespace';
export const NAMESPACE_LABELS_PREFIX = 'k8s:io.cilium.k8s.namespace.labels.';
export const SERVICE_ACCOUNT_KEY = 'k8s:io.cilium.k8s.policy.serviceaccount';
export const CLUSTER_KEY = 'k8s:io.cilium.k8s.policy.cluster';
/** Synthetic label on an outside destination known by name (the DNS proxy's view of it). */
export const FQDN_KEY = 'fqdn:name';

/** Cilium's default identity label filter: includes win over a shorter ignore. */
const INCLUDE = [
  /^io\.kubernetes\.pod\.namespace/,
  /^io\.cilium\.k8s\.namespace\.labels/,
  /^app\.kubernetes\.io/,
  /^io\.cilium\.k8s\.policy\.cluster/,
  /^io\.cilium\.k8s\.policy\.serviceaccount/,
];
const IGNORE = [
  /^io\.kubernetes/,
  /^kubernetes\.io/,
  /^statefulset\.kubernetes\.io\/pod-name/,
  /^apps\.kubernetes\.io\/pod-index/,
  /^batch\.kubernetes\.io\/job-completion-index/,
  /^batch\.kubernetes\.io\/controller-uid/,
  /^.*beta\.kubernetes\.io/,
  /^k8s\.io/,
  /^pod-template-generation/,
  /^pod-template-hash/,
  /^controller-revision-hash/,
  /^controller-uid/,
  /^annotation.*/,
  /^etcd_node/,
  /^topology\.kubernetes\.io/,
];

/** Whether Cilium's default filter keeps a pod label key in the endpoint's identity. */
export function identityRelevant(key: string): boolean {
  let included = 0;
  let ignored = 0;
  for (const p of INCLUDE) {
    const m = p.exec(key);
    if (m !== null && m[0].length > included) included = m[0].length;
  }
  for (const p of IGNORE) {
    const m = p.exec(key);
    if (m !== null && (ignored === 0 || m[0].length < ignored)) ignored = m[0].length;
  }
  return ignored === 0 || included > ignored;
}

/** The identity labels of a pod in `namespace` whose Namespace carries `namespaceLabels`. */
export function podIdentity(
  pod: Labels,
  namespace: string,
  namespaceLabels: Labels = {},
  serviceAccount = 'default',
): Labels {
  const entries: [string, string][] = [];
  for (const [key, value] of Object.entries(pod))
    if (identityRelevant(key)) entries.push([`k8s:${key}`, value]);
  const nsLabels: Record<string, string> = {
    ...namespaceLabels,
    'kubernetes.io/metadata.name': namespace,
  };
  for (const [key, value] of Object.entries(nsLabels))
    entries.push([`${NAMESPACE_LABELS_PREFIX}${key}`, value]);
  entries.push([NAMESPACE_KEY, namespace], [SERVICE_ACCOUNT_KEY, serviceAccount]);
  entries.push([CLUSTER_KEY, 'default']);
  return labelsFrom(entries);
}

/** A reserved identity: `reserved:world`, `reserved:ingress`, … */
export function reservedIdentity(name: string, extra: Labels = {}): Labels {
  return labelsFrom({ [`reserved:${name}`]: '', ...extra });
}

/** `app` → `k8s:app`; `k8s:app` and `reserved:host` stay; `any:app` → `k8s:app`. */
export function sourcedKey(key: string): string {
  const colon = key.indexOf(':');
  if (colon < 0) return `k8s:${key}`;
  const source = key.slice(0, colon);
  return source === 'any' ? `k8s:${key.slice(colon + 1)}` : key;
}

/** A LabelSelector object with every key given its source. */
function sourced(value: unknown): Record<string, unknown> | undefined {
  const selector = asRecord(value);
  if (selector === undefined) return undefined;
  const out: Record<string, unknown> = { ...selector };
  const labels = asRecord(selector.matchLabels);
  if (labels !== undefined)
    out.matchLabels = Object.fromEntries(
      Object.entries(labels).map(([k, v]) => [sourcedKey(k), v]),
    );
  if (Array.isArray(selector.matchExpressions))
    out.matchExpressions = asArray(selector.matchExpressions).map((e) => {
      const expression = asRecord(e);
      return expression !== undefined && typeof expression.key === 'string'
        ? { ...expression, key: sourcedKey(expression.key) }
        : e;
    });
  return out;
}

function keysOf(selector: Record<string, unknown>): string[] {
  return [
    ...Object.keys(asRecord(selector.matchLabels) ?? {}),
    ...asArray(selector.matchExpressions)
      .map((e) => asRecord(e)?.key)
      .filter((k): k is string => typeof k === 'string'),
  ];
}

export type SelectorRead = { selector: Selector } | { problem: string };

function read(object: unknown, where: string): SelectorRead {
  const { selector, errors } = fromLabelSelector(object, { path: where, profile: 'none' });
  return selector === undefined
    ? { problem: errors.map((e) => e.message).join('; ') || 'is not a label selector' }
    : { selector };
}

/**
 * A policy's `endpointSelector`: the policy's namespace is always added, replacing any namespace
 * the selector names (Cilium logs a warning and drops it).
 */
export function subjectSelector(value: unknown, namespace: string, where: string): SelectorRead {
  const selector = sourced(value ?? {});
  if (selector === undefined) return { problem: `${where} is not a label selector` };
  const labels = { ...(asRecord(selector.matchLabels) ?? {}), [NAMESPACE_KEY]: namespace };
  const expressions = asArray(selector.matchExpressions).filter(
    (e) => asRecord(e)?.key !== NAMESPACE_KEY,
  );
  return read({ ...selector, matchLabels: labels, matchExpressions: expressions }, where);
}

/**
 * A `fromEndpoints`/`toEndpoints` peer of a policy in `namespace`: without a namespace key (or a
 * namespace-label key, or a reserved key) it selects in the policy's own namespace only.
 */
export function peerSelector(value: unknown, namespace: string, where: string): SelectorRead {
  const selector = sourced(value ?? {});
  if (selector === undefined) return { problem: `${where} is not a label selector` };
  const keys = keysOf(selector);
  const scoped =
    keys.includes(NAMESPACE_KEY) ||
    keys.some((k) => k.startsWith(NAMESPACE_LABELS_PREFIX) || k.startsWith('reserved:'));
  if (scoped) return read(selector, where);
  return read(
    {
      ...selector,
      matchLabels: { ...(asRecord(selector.matchLabels) ?? {}), [NAMESPACE_KEY]: namespace },
    },
    where,
  );
}

const RESERVED_ENTITIES = [
  'world-ipv4',
  'world-ipv6',
  'host',
  'init',
  'ingress',
  'unmanaged',
  'health',
  'kube-apiserver',
  'remote-node',
  'none',
];
const exists = (name: string): Selector =>
  selectorOf([requirement(`reserved:${name}`, 'Exists', [])]);

/**
 * An entity as the selectors Cilium maps it to (pkg/policy/api/entity.go). `cluster` is every
 * reserved in-cluster identity plus every pod of this cluster; undefined for an unknown name.
 */
export function entitySelectors(entity: string): Selector[] | undefined {
  if (entity === 'all') return [EVERYTHING];
  if (entity === 'world') return ['world', 'world-ipv4', 'world-ipv6'].map(exists);
  if (entity === 'cluster')
    return [
      ...['host', 'remote-node', 'init', 'ingress', 'health', 'unmanaged', 'kube-apiserver'].map(
        exists,
      ),
      selectorOf([requirement(CLUSTER_KEY, 'In', ['default'])]),
    ];
  return RESERVED_ENTITIES.includes(entity) ? [exists(entity)] : undefined;
}

/**
 * A selector of a cluster-scoped object (a CiliumEgressGatewayPolicy's `podSelector`): it
 * selects in every namespace unless it names one.
 */
export function clusterSelector(value: unknown, where: string): SelectorRead {
  const selector = sourced(value ?? {});
  return selector === undefined
    ? { problem: `${where} is not a label selector` }
    : read(selector, where);
}

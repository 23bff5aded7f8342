/**
 * Clients as label sets, so "who can reach what" is a question for the selector algebra.
 *
 * A client is described by four labels: `client.labelwise.dev/authenticated` (`true`/`false`),
 * `…/namespace` and `…/serviceaccount` (of a Linkerd identity
 * `<sa>.<ns>.serviceaccount.identity.<control-plane-ns>.<domain>`) and, kept apart because it
 * is a CIDR question and not a label one, the network it comes from (`cluster` or `external`).
 *
 * The columns of the matrix partition the clients: every ServiceAccount the policy names, the
 * other ServiceAccounts of each namespace, every other authenticated identity, and
 * unauthenticated clients from the cluster networks and from outside them. Each authorization
 * becomes a list of selectors over the same labels (an OR of ANDs), so whether it admits a whole
 * column is `subsumes` and whether it admits part of one is `overlap`.
 */
import { compareText, pushAll } from '../../base/index.js';
import { requirement, selectorOf } from '../../selector/index.js';
import type { Requirement, Selector } from '../../selector/index.js';
import type { Authorization } from '../compile/authorizations.js';
import type { PolicyModel } from '../compile/model.js';
import { cidrCovers, cidrsIntersect, parseCidr } from '../networks.js';
import type { Cidr } from '../networks.js';
import type { ClusterSettings } from '../types.js';

export const AUTHENTICATED = 'client.labelwise.dev/authenticated';
export const NAMESPACE = 'client.labelwise.dev/namespace';
export const SERVICE_ACCOUNT = 'client.labelwise.dev/serviceaccount';

export type ClientNetwork = 'cluster' | 'external';

/** One column of the matrix. */
export interface ClientClass {
  /** `sa:<ns>/<name>`, `ns:<ns>`, `authenticated`, `unauthenticated:cluster`, `unauthenticated:external`. */
  readonly id: string;
  readonly description: string;
  readonly selector: Selector;
  readonly network: ClientNetwork;
  /** The ServiceAccount and namespace a witness identity is made of; absent: unauthenticated. */
  readonly identity?: { readonly namespace: string; readonly serviceAccount: string };
}

/** How much of a network class an authorization's networks admit. */
export type Reach = 'all' | 'some' | 'none';

/** An authorization as selectors over client labels, and its reach into each network class. */
export interface ClientTerms {
  /** Alternatives (OR); empty when it admits no client a column can describe. */
  readonly selectors: readonly Selector[];
  readonly networks: Readonly<Record<ClientNetwork, Reach>>;
  /** Identity patterns no column describes (other trust domains, SPIFFE IDs). */
  readonly outside: readonly string[];
}

const is = (key: string, value: string): Requirement => requirement(key, 'In', [value]);

function trustRoot(settings: ClusterSettings): string {
  return `serviceaccount.identity.${settings.controlPlaneNamespace}.${settings.identityDomain}`;
}

/** `{sa, ns}` of a Linkerd identity of this trust domain, or undefined. */
export function parseIdentity(
  identity: string,
  settings: ClusterSettings,
): { serviceAccount: string; namespace: string } | undefined {
  const root = `.${trustRoot(settings)}`;
  if (!identity.endsWith(root)) return undefined;
  const parts = identity.slice(0, -root.length).split('.');
  if (parts.length !== 2 || parts.some((p) => p === '' || p === '*')) return undefined;
  return { serviceAccount: parts[0] as string, namespace: parts[1] as string };
}

/** One identity pattern as requirements over client labels; undefined when no column has it. */
function patternRequirements(
  pattern: string,
  settings: ClusterSettings,
): Requirement[] | undefined {
  const authenticated = is(AUTHENTICATED, 'true');
  if (pattern === '*') return [authenticated];
  const root = trustRoot(settings);
  if (pattern.startsWith('*.')) {
    const suffix = pattern.slice(2);
    if (suffix === root || root.endsWith(`.${suffix}`)) return [authenticated];
    const namespace = suffix.endsWith(`.${root}`) ? suffix.slice(0, -root.length - 1) : undefined;
    if (namespace !== undefined && namespace !== '' && !namespace.includes('.'))
      return [authenticated, is(NAMESPACE, namespace)];
    return undefined;
  }
  const parsed = parseIdentity(pattern, settings);
  if (parsed === undefined) return undefined;
  return [
    authenticated,
    is(NAMESPACE, parsed.namespace),
    is(SERVICE_ACCOUNT, parsed.serviceAccount),
  ];
}

function networkReach(authz: Authorization, settings: ClusterSettings): ClientTerms['networks'] {
  const cluster = settings.clusterNetworks.map(parseCidr).filter((c): c is Cidr => c !== undefined);
  const coveredBy = (c: Cidr): boolean =>
    authz.networks.some(
      (t) => cidrCovers(t.cidr, c) && t.except.every((e) => !cidrsIntersect(e, c)),
    );
  const touches = (c: Cidr): boolean =>
    authz.networks.some(
      (t) => cidrsIntersect(t.cidr, c) && !t.except.some((e) => cidrCovers(e, c)),
    );
  const clusterReach: Reach = cluster.every(coveredBy)
    ? 'all'
    : cluster.some(touches)
      ? 'some'
      : 'none';
  const insideCluster = (c: Cidr): boolean => cluster.some((k) => cidrCovers(k, c));
  const whole = ['0.0.0.0/0', '::/0'].map((t) => parseCidr(t) as Cidr);
  const externalAll = whole.every((w) =>
    authz.networks.some((t) => cidrCovers(t.cidr, w) && t.except.every(insideCluster)),
  );
  const externalSome = authz.networks.some((t) => !insideCluster(t.cidr));
  return {
    cluster: clusterReach,
    external: externalAll ? 'all' : externalSome ? 'some' : 'none',
  };
}

/** An authorization as client terms (see the file comment). */
export function clientTerms(authz: Authorization, settings: ClusterSettings): ClientTerms {
  const networks = networkReach(authz, settings);
  const authn = authz.authentication;
  if (authn === 'unauthenticated') return { selectors: [selectorOf([])], networks, outside: [] };
  if (authn === 'tls')
    return { selectors: [selectorOf([is(AUTHENTICATED, 'true')])], networks, outside: [] };
  // Every matcher must hold (AND); within a matcher any pattern may (OR): expand to an OR of ANDs.
  let conjunctions: Requirement[][] = [[]];
  const outside: string[] = [];
  for (const matcher of authn) {
    const options: Requirement[][] = [];
    for (const pattern of matcher.patterns) {
      const reqs = patternRequirements(pattern, settings);
      if (reqs === undefined) outside.push(pattern);
      else options.push(reqs);
    }
    conjunctions = conjunctions.flatMap((c) => options.map((o) => [...c, ...o]));
  }
  return {
    selectors: conjunctions.map((c) => selectorOf(c)),
    networks,
    outside: [...new Set(outside)].sort(compareText),
  };
}

/** Every identity pattern of the model's authorizations, to find the clients they name. */
function patternsOf(model: PolicyModel): string[] {
  const out: string[] = [];
  const r = model.resources;
  for (const m of r.meshTLSAuthentications) {
    pushAll(out, m.identities);
    for (const ref of m.identityRefs)
      if (ref.kind === 'ServiceAccount' && ref.name !== '*')
        out.push(`${ref.name}.${ref.namespace}.${trustRoot(model.settings)}`);
      else out.push(`*.${ref.namespace}.${trustRoot(model.settings)}`);
  }
  for (const p of r.authorizationPolicies)
    for (const ref of p.requiredAuthenticationRefs)
      if (ref.kind === 'ServiceAccount')
        out.push(`${ref.name}.${ref.namespace ?? p.meta.namespace}.${trustRoot(model.settings)}`);
  for (const sa of r.serverAuthorizations) {
    const mesh = sa.client.meshTLS;
    if (mesh === undefined) continue;
    pushAll(out, mesh.identities);
    for (const ref of mesh.serviceAccounts)
      out.push(`${ref.name}.${ref.namespace}.${trustRoot(model.settings)}`);
  }
  return out;
}

/**
 * The columns for a model: ServiceAccounts its policies name, then per namespace (of the input or
 * named by a policy) its other ServiceAccounts, then any other identity and the unauthenticated.
 * With `others`, the columns of all the models together: two revisions evaluated over the same
 * clients, so a cell differs only where a decision does (`labelwise diff`).
 */
export function clientClasses(
  model: PolicyModel,
  ...others: readonly PolicyModel[]
): ClientClass[] {
  const accounts = new Map<string, Set<string>>();
  const namespaces = new Set<string>();
  for (const m of [model, ...others]) {
    for (const ns of m.resources.namespaces) namespaces.add(ns.meta.name);
    for (const pod of m.podList) namespaces.add(pod.meta.namespace);
    for (const pattern of patternsOf(m)) {
      const parsed = parseIdentity(pattern, m.settings);
      if (parsed !== undefined) {
        namespaces.add(parsed.namespace);
        const set = accounts.get(parsed.namespace) ?? new Set<string>();
        set.add(parsed.serviceAccount);
        accounts.set(parsed.namespace, set);
        continue;
      }
      const reqs = patternRequirements(pattern, m.settings);
      const ns = reqs?.find((r) => r.key === NAMESPACE)?.values[0];
      if (ns !== undefined) namespaces.add(ns);
    }
  }
  const out: ClientClass[] = [];
  const authenticated = is(AUTHENTICATED, 'true');
  const sortedNamespaces = [...namespaces].sort(compareText);
  for (const ns of sortedNamespaces) {
    for (const sa of [...(accounts.get(ns) ?? [])].sort(compareText)) {
      out.push({
        id: `sa:${ns}/${sa}`,
        description: `ServiceAccount ${sa} of namespace ${ns}`,
        selector: selectorOf([authenticated, is(NAMESPACE, ns), is(SERVICE_ACCOUNT, sa)]),
        network: 'cluster',
        identity: { namespace: ns, serviceAccount: sa },
      });
    }
  }
  for (const ns of sortedNamespaces) {
    const known = [...(accounts.get(ns) ?? [])].sort(compareText);
    const others = known.length === 0 ? [] : [requirement(SERVICE_ACCOUNT, 'NotIn', known)];
    out.push({
      id: `ns:${ns}`,
      description:
        known.length === 0
          ? `any ServiceAccount of namespace ${ns}`
          : `the other ServiceAccounts of namespace ${ns}`,
      selector: selectorOf([authenticated, is(NAMESPACE, ns), ...others]),
      network: 'cluster',
      identity: { namespace: ns, serviceAccount: freshName('other', known) },
    });
  }
  out.push({
    id: 'authenticated',
    description: 'any other authenticated client',
    selector: selectorOf(
      sortedNamespaces.length === 0
        ? [authenticated]
        : [authenticated, requirement(NAMESPACE, 'NotIn', sortedNamespaces)],
    ),
    network: 'cluster',
    identity: { namespace: freshName('elsewhere', sortedNamespaces), serviceAccount: 'default' },
  });
  for (const network of ['cluster', 'external'] as const) {
    out.push({
      id: `unauthenticated:${network}`,
      description: `unauthenticated clients from ${network === 'cluster' ? 'the cluster networks' : 'outside the cluster networks'}`,
      selector: selectorOf([is(AUTHENTICATED, 'false')]),
      network,
    });
  }
  return out;
}

/** `base`, or `base-2`, `base-3`, … when taken. */
function freshName(base: string, taken: readonly string[]): string {
  if (!taken.includes(base)) return base;
  for (let i = 2; ; i++) if (!taken.includes(`${base}-${i}`)) return `${base}-${i}`;
}

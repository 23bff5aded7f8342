/**
 * Who can reach what (`labelwise policy matrix`): for every Server port and route of the
 * compiled model, which client columns are admitted, and where each client namespace's outbound
 * traffic goes (`outbound.ts`). Computed from the compiled authorizations
 * with the selector algebra (see `clients.ts`), not by sampling requests: a cell is `allow` when
 * some authorization admits every client of the column, `some` when authorizations admit part of
 * it (some addresses, some identities), `deny` when none admits any. Localhost is always admitted
 * and not shown. Each cell carries a witness request that `authorize` decides with its trace.
 */
import { compareText } from '../../base/index.js';
import { overlap, subsumes } from '../../selector/index.js';
import type { Authorization } from '../compile/authorizations.js';
import type { PolicyModel, PortPolicy } from '../compile/model.js';
import type { HttpVersion } from '../compile/route-labels.js';
import type { CompiledRoute } from '../routes/route-table.js';
import type { ClientClass, ClientTerms, Reach } from './clients.js';
import { clientClasses, clientTerms } from './clients.js';
import { describeMatches } from './describe.js';
import { clientNamespaces, outboundFlows } from './outbound.js';
import type { OutboundFlow } from './outbound.js';
import { witnessClient, witnessRequest } from './witness.js';
import type { Witness } from './witness.js';

export type Reachability = 'allow' | 'some' | 'deny';

export interface MatrixCell {
  readonly reach: Reachability;
  /** The authorization that admits the most of the column; absent for `deny`. */
  readonly via?: string;
  /** A request to give `authorize` (same trace), with a client of the column. */
  readonly witness: Witness;
}

export interface MatrixRow {
  /** `<ns>/<server>:<port>/<route>`; the server is its name or `default:<policy>`. */
  readonly id: string;
  readonly namespace: string;
  /** `ns/name`, or `default:<policy>`. */
  readonly server: string;
  readonly port: number;
  readonly protocol: string;
  /** The route name (`default`, `probe` for synthesised ones), or `(connection)` on opaque/TLS ports. */
  readonly route: string;
  /** What the route matches, in short: `GET /authors.json, DELETE /authors/*`. */
  readonly matches: string;
  /** Pods (`ns/name`) this row is about, sorted. */
  readonly pods: readonly string[];
  /** Authorizations that apply, by name (localhost left out). */
  readonly authorizations: readonly string[];
  /** Identity patterns no column describes, which some authorization admits. */
  readonly alsoAdmits: readonly string[];
  /** Keyed by client id, in the order of `clients`. */
  readonly cells: Readonly<Record<string, MatrixCell>>;
}

export interface PolicyMatrix {
  readonly clients: readonly {
    readonly id: string;
    readonly description: string;
    readonly network: string;
  }[];
  readonly rows: readonly MatrixRow[];
  /** The namespaces of the input's pods: the clients of the outbound flows. */
  readonly clientNamespaces: readonly string[];
  /** Where each client namespace's outbound traffic goes (see `outbound.ts`). */
  readonly outbound: readonly OutboundFlow[];
  /** The connection's HTTP version the rows of `unknown` Servers were computed for. */
  readonly httpVersion?: HttpVersion;
}

/** Options for {@link computeMatrix}. */
export interface MatrixOptions {
  /** Only rows of this namespace. Default: every namespace. */
  namespace?: string;
  /** The columns, instead of the model's own (`clientClasses(a, b)` compares two models). */
  clients?: readonly ClientClass[];
  /** The namespace of cluster-wide EgressNetworks, for the outbound flows. Default: `linkerd-egress`. */
  egressNamespace?: string;
  /**
   * The connection's HTTP version on `unknown` Servers (`authorize --http-version`): their
   * route-group routes carry it, and their witnesses name it. Default: none.
   */
  httpVersion?: HttpVersion;
}

const RANK: Record<Reachability, number> = { deny: 0, some: 1, allow: 2 };

function combine(identity: 'all' | 'some' | 'none', network: Reach): Reachability {
  if (identity === 'none' || network === 'none') return 'deny';
  return identity === 'all' && network === 'all' ? 'allow' : 'some';
}

/** How much of `client` the authorization admits. */
function cellFor(terms: ClientTerms, client: ClientClass): Reachability {
  let identity: 'all' | 'some' | 'none' = 'none';
  for (const s of terms.selectors) {
    if (subsumes(s, client.selector).subsumes) {
      identity = 'all';
      break;
    }
    if (overlap(s, client.selector).overlap) identity = 'some';
  }
  return combine(identity, terms.networks[client.network]);
}

interface RowSource {
  readonly namespace: string;
  readonly policy: PortPolicy;
  readonly route: CompiledRoute | undefined;
  readonly pods: string[];
}

function serverShort(policy: PortPolicy): string {
  return policy.serverObject?.meta.name ?? policy.server;
}

/** Every (server, port, route) of the model's pods, each with the pods it applies to. */
function rowSources(
  model: PolicyModel,
  namespace: string | undefined,
  httpVersion: HttpVersion | undefined,
): RowSource[] {
  const rows = new Map<string, RowSource>();
  for (const pod of model.podList) {
    if (namespace !== undefined && pod.meta.namespace !== namespace) continue;
    const podRef = `${pod.meta.namespace}/${pod.meta.name}`;
    for (const port of model.portsOf(pod)) {
      const policy = model.portPolicy(pod, port, httpVersion);
      const opaque = policy.protocol === 'opaque' || policy.protocol === 'TLS';
      const routes: (CompiledRoute | undefined)[] = opaque ? [undefined] : [...policy.table.routes];
      for (const route of routes) {
        // Synthesised routes differ per pod (probe paths), so they are told apart by their content.
        const id = `${pod.meta.namespace}/${serverShort(policy)}:${port}/${route?.name ?? '(connection)'}`;
        const key =
          route === undefined || (route.kind !== 'probe' && route.kind !== 'default')
            ? id
            : `${id}\u0000${describeMatches(route)}\u0000${policy.authorizations.map((a) => a.name).join(',')}`;
        const existing = rows.get(key);
        if (existing !== undefined) existing.pods.push(podRef);
        else rows.set(key, { namespace: pod.meta.namespace, policy, route, pods: [podRef] });
      }
    }
  }
  return [...rows.values()];
}

function authorizationsOf(source: RowSource): Authorization[] {
  const list = [...(source.route?.authorizations ?? []), ...source.policy.authorizations];
  return [...new Set(list)].filter((a) => a.kind !== 'localhost');
}

/** The cells of one row: for each client, the authorization admitting the most, and a witness. */
function cellsOf(
  source: RowSource,
  authorizations: readonly Authorization[],
  clients: readonly ClientClass[],
  termsOf: (a: Authorization) => ClientTerms,
  settings: PolicyModel['settings'],
  detected: { httpVersion?: HttpVersion },
): Record<string, MatrixCell> {
  const cells: Record<string, MatrixCell> = {};
  for (const client of clients) {
    let reach: Reachability = 'deny';
    let via: string | undefined;
    for (const a of authorizations) {
      const r = cellFor(termsOf(a), client);
      if (RANK[r] > RANK[reach]) {
        reach = r;
        via = a.name;
        if (r === 'allow') break;
      }
    }
    cells[client.id] = {
      reach,
      ...(via === undefined ? {} : { via }),
      witness: {
        pod: source.pods[0] as string,
        port: source.policy.port,
        ...witnessRequest(source.route),
        ...witnessClient(client, settings),
        ...detected,
      },
    };
  }
  return cells;
}

/**
 * The matrix of a compiled model. Deterministic: rows sorted by namespace, server, port and
 * route; columns as {@link clientClasses} orders them. Pure.
 */
export function computeMatrix(model: PolicyModel, options: MatrixOptions = {}): PolicyMatrix {
  const clients = options.clients ?? clientClasses(model);
  const termsCache = new Map<Authorization, ClientTerms>();
  const termsOf = (a: Authorization): ClientTerms => {
    let t = termsCache.get(a);
    if (t === undefined) termsCache.set(a, (t = clientTerms(a, model.settings)));
    return t;
  };
  const outboundOptions = {
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    ...(options.egressNamespace === undefined ? {} : { egressNamespace: options.egressNamespace }),
  };
  const rows: MatrixRow[] = [];
  const version = options.httpVersion;
  for (const source of rowSources(model, options.namespace, version)) {
    const authorizations = authorizationsOf(source);
    const detected =
      version !== undefined &&
      source.policy.protocol === 'unknown' &&
      source.policy.serverObject !== undefined
        ? { httpVersion: version }
        : {};
    const routeName = source.route?.name ?? '(connection)';
    const cells = cellsOf(source, authorizations, clients, termsOf, model.settings, detected);
    rows.push({
      id: `${source.namespace}/${serverShort(source.policy)}:${source.policy.port}/${routeName}`,
      namespace: source.namespace,
      server: source.policy.server,
      port: source.policy.port,
      protocol: source.policy.protocol,
      route: routeName,
      matches: source.route === undefined ? 'every connection' : describeMatches(source.route),
      pods: [...source.pods].sort(compareText),
      authorizations: authorizations.map((a) => a.name),
      alsoAdmits: [...new Set(authorizations.flatMap((a) => termsOf(a).outside))].sort(compareText),
      cells,
    });
  }
  rows.sort(
    (a, b) =>
      compareText(a.namespace, b.namespace) ||
      compareText(a.server, b.server) ||
      a.port - b.port ||
      compareText(a.route, b.route) ||
      compareText(a.pods[0] ?? '', b.pods[0] ?? ''),
  );
  // Synthesised routes of pods with different probes share an id: tell them apart by pod.
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.id, (counts.get(row.id) ?? 0) + 1);
  const unique = rows.map((row) =>
    (counts.get(row.id) ?? 0) > 1 ? { ...row, id: `${row.id}[${row.pods[0] ?? ''}]` } : row,
  );
  return {
    clients: clients.map((c) => ({ id: c.id, description: c.description, network: c.network })),
    rows: unique,
    clientNamespaces: clientNamespaces(model, outboundOptions),
    outbound: outboundFlows(model, outboundOptions),
    ...(version === undefined ? {} : { httpVersion: version }),
  };
}

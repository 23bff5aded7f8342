/**
 * The conformance checks over rendered objects other than selectors: route DNS opt-out, backend
 * and monitor ports, the disruption budget, bulk volume binding, forbidden pod settings, the
 * forward-auth surface, the VPN class and the refused workload flip. Each returns one result per
 * object it looked at, so a passing run also says what was proved.
 */
import type { KubeObject, ResolvedService } from '../types.js';
import { APP_CONTAINER, AUTH_CONTAINER } from '../render/labels.js';
import type { CheckResult, ConformanceInput } from './model.js';
import { asArray, asRecord, describeObject, field, workloadOf } from './model.js';

type Check = (input: ConformanceInput) => CheckResult[];

const byKind = (objects: readonly KubeObject[], kind: string) =>
  objects.filter((o) => o.kind === kind);
const result = (
  name: string,
  object: KubeObject | string,
  ok: boolean,
  message: string,
): CheckResult => ({
  name,
  ok,
  object: typeof object === 'string' ? object : describeObject(object),
  message,
});
const serviceDef = (input: ConformanceInput, name: string): ResolvedService | undefined =>
  input.services.find((s) => s.name === name);

/** Internal routes carry the ExternalDNS opt-out; public routes do not. */
export const checkRouteDns: Check = (input) => {
  const key = `${input.platform.externalDns.annotationPrefix}controller`;
  const out: CheckResult[] = [];
  for (const [service, objects] of input.objects) {
    const exposure = serviceDef(input, service)?.exposure ?? 'internal';
    for (const route of byKind(objects, 'HTTPRoute')) {
      const value = asRecord(field(route, 'metadata', 'annotations'))?.[key];
      if (exposure === 'internal') {
        const ok = value !== undefined && value !== 'dns-controller';
        out.push(
          result(
            'internal-services-publish-no-public-dns',
            route,
            ok,
            ok
              ? `carries ${key}: ${String(value)}`
              : `internal route lacks ${key}: none, so ExternalDNS would publish it`,
          ),
        );
      } else {
        const ok = value === undefined;
        out.push(
          result(
            'internal-services-publish-no-public-dns',
            route,
            ok,
            ok
              ? 'public route carries no ExternalDNS opt-out'
              : `public route carries ${key}, so it would never be published`,
          ),
        );
      }
    }
  }
  return out;
};

function servicePortsOf(
  objects: readonly KubeObject[],
  name: unknown,
): { names: Set<string>; numbers: Set<number> } | undefined {
  const svc = byKind(objects, 'Service').find((s) => s.metadata.name === name);
  if (svc === undefined) return undefined;
  const ports = asArray(field(svc, 'spec', 'ports'));
  return {
    names: new Set(
      ports.map((p) => field(p, 'name')).filter((n): n is string => typeof n === 'string'),
    ),
    numbers: new Set(
      ports.map((p) => field(p, 'port')).filter((n): n is number => typeof n === 'number'),
    ),
  };
}

/** Every HTTPRoute backend and ServiceMonitor endpoint resolves to a Service port. */
export const checkPortsResolve: Check = (input) => {
  const out: CheckResult[] = [];
  for (const objects of input.objects.values()) {
    for (const route of byKind(objects, 'HTTPRoute')) {
      for (const rule of asArray(field(route, 'spec', 'rules'))) {
        for (const ref of asArray(field(rule, 'backendRefs'))) {
          const ports = servicePortsOf(objects, field(ref, 'name'));
          const port = field(ref, 'port');
          const ok = ports !== undefined && typeof port === 'number' && ports.numbers.has(port);
          out.push(
            result(
              'backend-ports-resolve',
              route,
              ok,
              ok
                ? `backend ${String(field(ref, 'name'))}:${String(port)} is a Service port`
                : `backend ${String(field(ref, 'name'))}:${String(port)} is not a port of a Service in the namespace`,
            ),
          );
        }
      }
    }
    for (const monitor of byKind(objects, 'ServiceMonitor')) {
      const wanted = asRecord(field(monitor, 'spec', 'selector', 'matchLabels')) ?? {};
      const selected = byKind(objects, 'Service').filter((s) => {
        const labels = asRecord(field(s, 'metadata', 'labels')) ?? {};
        return (
          Object.keys(wanted).length > 0 &&
          Object.entries(wanted).every(([k, v]) => labels[k] === v)
        );
      });
      for (const endpoint of asArray(field(monitor, 'spec', 'endpoints'))) {
        const port = field(endpoint, 'port');
        const ok =
          selected.length > 0 &&
          selected.every(
            (s) => servicePortsOf(objects, s.metadata.name)?.names.has(String(port)) === true,
          );
        out.push(
          result(
            'backend-ports-resolve',
            monitor,
            ok,
            ok
              ? `endpoint port ${String(port)} is a port of the selected Service`
              : `endpoint port ${String(port)} is not a named port of a Service it selects`,
          ),
        );
      }
    }
  }
  return out;
};

/** A PodDisruptionBudget exists if and only if the workload runs more than one replica. */
export const checkDisruptionBudget: Check = (input) => {
  const out: CheckResult[] = [];
  for (const [service, objects] of input.objects) {
    const workload = workloadOf(objects);
    if (workload === undefined) continue;
    const replicas =
      workload.kind === 'VirtualMachine' ? 1 : Number(field(workload, 'spec', 'replicas') ?? 1);
    const budgets = byKind(objects, 'PodDisruptionBudget');
    // The budget is `minAvailable: 1` (docs/catalog.md): more would let no voluntary disruption through
    // once a replica is already down, blocking drains just like a budget at one replica.
    const strict = budgets.filter((b) => field(b, 'spec', 'minAvailable') !== 1);
    const ok = replicas > 1 ? budgets.length === 1 && strict.length === 0 : budgets.length === 0;
    out.push(
      result(
        'pdb-iff-replicas',
        workload,
        ok,
        ok
          ? `${replicas} replica(s), ${budgets.length} PodDisruptionBudget(s)`
          : replicas > 1
            ? budgets.length === 0
              ? `${service} runs ${replicas} replicas but has no PodDisruptionBudget`
              : budgets.length > 1
                ? `${service} has ${budgets.length} PodDisruptionBudgets; one with minAvailable: 1 is expected`
                : `PodDisruptionBudget ${budgets[0]?.metadata.name ?? ''} has minAvailable ${JSON.stringify(field(budgets[0], 'spec', 'minAvailable'))}, not 1`
            : `${service} runs one replica, where a PodDisruptionBudget would block every drain`,
      ),
    );
  }
  return out;
};

/** Bulk PersistentVolumes and their claims point at each other, statically and retained. */
export const checkBulkBinding: Check = (input) => {
  const out: CheckResult[] = [];
  for (const objects of input.objects.values()) {
    const claims = byKind(objects, 'PersistentVolumeClaim');
    for (const pv of byKind(objects, 'PersistentVolume')) {
      const ref = field(pv, 'spec', 'claimRef');
      const claim = claims.find(
        (c) =>
          c.metadata.name === field(ref, 'name') &&
          c.metadata.namespace === field(ref, 'namespace'),
      );
      const problems: string[] = [];
      if (claim === undefined)
        problems.push(
          `claimRef ${String(field(ref, 'namespace'))}/${String(field(ref, 'name'))} names no claim`,
        );
      else {
        if (field(claim, 'spec', 'volumeName') !== pv.metadata.name)
          problems.push(`claim ${claim.metadata.name} does not name the volume in volumeName`);
        if (field(claim, 'spec', 'storageClassName') !== '')
          problems.push('the claim\'s storageClassName is not ""');
      }
      if (field(pv, 'spec', 'storageClassName') !== '')
        problems.push('the volume\'s storageClassName is not ""');
      if (field(pv, 'spec', 'persistentVolumeReclaimPolicy') !== 'Retain')
        problems.push('the reclaim policy is not Retain');
      out.push(
        result(
          'bulk-volumes-bound-both-ways',
          pv,
          problems.length === 0,
          problems.length === 0 ? 'volume and claim are bound from both ends' : problems.join('; '),
        ),
      );
    }
  }
  return out;
};

function podSpecOf(workload: KubeObject): Record<string, unknown> | undefined {
  return asRecord(field(workload, 'spec', 'template', 'spec'));
}

/**
 * No privileged, hostPath, host namespaces, CPU limit, token, supplementalGroups; hardening
 * present. The one exception is explicit and reviewed: a definition's `security.rootException`
 * lets its app container run as root with exactly the capabilities it lists.
 */
export const checkPodSettings: Check = (input) => {
  const out: CheckResult[] = [];
  for (const [service, objects] of input.objects) {
    const exception = serviceDef(input, service)?.security.rootException;
    for (const workload of objects.filter(
      (o) => o.kind === 'Deployment' || o.kind === 'StatefulSet',
    )) {
      const spec = podSpecOf(workload) ?? {};
      const problems: string[] = [];
      for (const host of ['hostNetwork', 'hostPID', 'hostIPC'])
        if (spec[host] === true) problems.push(`${host} is set`);
      if (spec.automountServiceAccountToken !== false)
        problems.push('the service-account token is mounted');
      if (exception === undefined && field(spec, 'securityContext', 'runAsNonRoot') !== true)
        problems.push('runAsNonRoot is not set');
      if (field(spec, 'securityContext', 'seccompProfile', 'type') !== 'RuntimeDefault')
        problems.push('seccomp is not RuntimeDefault');
      if (field(spec, 'securityContext', 'supplementalGroups') !== undefined)
        problems.push('supplementalGroups is set');
      for (const volume of asArray(spec.volumes))
        if (field(volume, 'hostPath') !== undefined)
          problems.push(`volume ${String(field(volume, 'name'))} is a hostPath`);
      for (const container of [...asArray(spec.containers), ...asArray(spec.initContainers)]) {
        const name = String(field(container, 'name'));
        if (field(container, 'securityContext', 'privileged') === true)
          problems.push(`container ${name} is privileged`);
        if (field(container, 'securityContext', 'allowPrivilegeEscalation') !== false)
          problems.push(`container ${name} allows privilege escalation`);
        const drop = asArray(field(container, 'securityContext', 'capabilities', 'drop'));
        if (!drop.includes('ALL'))
          problems.push(`container ${name} does not drop ALL capabilities`);
        const added = asArray(field(container, 'securityContext', 'capabilities', 'add'));
        const reviewed = name === APP_CONTAINER ? (exception?.capabilities ?? []) : [];
        if (added.some((cap) => !reviewed.includes(String(cap))))
          problems.push(`container ${name} adds capabilities no reviewed rootException lists`);
        if (name !== APP_CONTAINER && field(container, 'securityContext', 'runAsNonRoot') === false)
          problems.push(`container ${name} runs as root`);
        if (field(container, 'resources', 'limits', 'cpu') !== undefined)
          problems.push(`container ${name} has a CPU limit`);
      }
      out.push(
        result(
          'no-forbidden-pod-settings',
          workload,
          problems.length === 0,
          problems.length === 0 ? 'secure pod defaults, nothing forbidden' : problems.join('; '),
        ),
      );
    }
  }
  return out;
};

/** Which ports of a forward-auth service may be reached, and from where. */
interface AuthSurface {
  /** Every routed port, and whatever the proxy actually forwards to (its --upstream). */
  readonly fronted: ReadonlySet<number>;
  /** The proxy, and the app's ports the proxy does not front (DNS, a metrics port). */
  readonly allowed: ReadonlySet<number>;
  /** The declared in-cluster clients: the only ones that may reach a fronted port. */
  readonly clients: readonly string[];
}

function proxyContainerOf(workload: KubeObject | undefined): unknown {
  if (workload === undefined) return undefined;
  return asArray(podSpecOf(workload)?.containers).find((c) => field(c, 'name') === AUTH_CONTAINER);
}

/**
 * The fronted ports come from the routes and from the proxy's own `--upstream`, so a service
 * without routes cannot expose the port behind its proxy either.
 */
function authSurface(
  definition: ResolvedService | undefined,
  proxyContainer: unknown,
  proxy: number,
): AuthSurface {
  const fronted = new Set(definition?.ingressRoutes.map((r) => r.port.port) ?? []);
  for (const arg of asArray(field(proxyContainer, 'args'))) {
    const upstream = /^--upstream=https?:\/\/[^/]*:(\d+)(\/|$)/.exec(String(arg));
    if (upstream?.[1] !== undefined) fronted.add(Number(upstream[1]));
  }
  const allowed = new Set([
    proxy,
    ...(definition?.ports ?? []).map((p) => p.port).filter((p) => !fronted.has(p)),
  ]);
  return { fronted, allowed, clients: definition?.inClusterClients ?? [] };
}

/** A rule that admits only pods of declared clients, by their namespace and workload labels. */
function admitsClientsOnly(rule: unknown, clients: readonly string[]): boolean {
  if (Object.keys(asRecord(rule) ?? {}).some((k) => k !== 'fromEndpoints' && k !== 'toPorts'))
    return false;
  const peers = asArray(field(rule, 'fromEndpoints'));
  return (
    peers.length > 0 &&
    peers.every((peer) => {
      const labels = asRecord(field(peer, 'matchLabels')) ?? {};
      const namespace = labels['k8s:io.kubernetes.pod.namespace'];
      return (
        typeof namespace === 'string' &&
        clients.includes(namespace) &&
        labels['app.kubernetes.io/name'] === namespace &&
        field(peer, 'matchExpressions') === undefined
      );
    })
  );
}

/** A Service lists a fronted port only as a ClusterIP for declared clients. */
function serviceExposures(objects: readonly KubeObject[], surface: AuthSurface): string[] {
  const problems: string[] = [];
  for (const svc of byKind(objects, 'Service')) {
    for (const port of asArray(field(svc, 'spec', 'ports'))) {
      const number = Number(field(port, 'port'));
      const forClients =
        surface.clients.length > 0 &&
        surface.fronted.has(number) &&
        field(svc, 'spec', 'type') === undefined;
      if (!forClients && !surface.allowed.has(number))
        problems.push(
          `Service ${svc.metadata.name} exposes app port ${String(field(port, 'port'))}`,
        );
    }
  }
  return problems;
}

/** Every route reaches the proxy's port and nothing else. */
function routeBypasses(objects: readonly KubeObject[], proxy: number): string[] {
  const problems: string[] = [];
  for (const route of byKind(objects, 'HTTPRoute'))
    for (const rule of asArray(field(route, 'spec', 'rules')))
      for (const ref of asArray(field(rule, 'backendRefs')))
        if (field(ref, 'port') !== proxy)
          problems.push(
            `HTTPRoute ${route.metadata.name} bypasses the proxy (port ${String(field(ref, 'port'))})`,
          );
  return problems;
}

/** A policy admits a fronted port only from the declared clients' own pods. */
function policyAdmissions(objects: readonly KubeObject[], surface: AuthSurface): string[] {
  const problems: string[] = [];
  for (const policy of byKind(objects, 'CiliumNetworkPolicy'))
    for (const rule of asArray(field(policy, 'spec', 'ingress')))
      for (const tp of asArray(field(rule, 'toPorts')))
        for (const port of asArray(field(tp, 'ports'))) {
          const number = Number(field(port, 'port'));
          if (surface.fronted.has(number) && admitsClientsOnly(rule, surface.clients)) continue;
          if (!surface.allowed.has(number))
            problems.push(
              `CiliumNetworkPolicy ${policy.metadata.name} admits port ${String(field(port, 'port'))}`,
            );
        }
  return problems;
}

/**
 * A service behind forward-auth lets nobody but its declared in-cluster clients reach the app
 * port the proxy fronts: the Gateway and every route reach only the proxy's port, a Service lists
 * the fronted port only when there are declared clients, and a policy admits it only from the
 * clients' own pods (docs/catalog.md § Forward auth).
 */
export const checkAuthSurface: Check = (input) => {
  const out: CheckResult[] = [];
  const proxy = input.platform.forwardAuth.port;
  for (const [name, objects] of input.objects) {
    const definition = serviceDef(input, name);
    const workload = workloadOf(objects);
    const proxyContainer = proxyContainerOf(workload);
    if (definition?.auth.mode !== 'forward-auth' && proxyContainer === undefined) continue;
    const surface = authSurface(definition, proxyContainer, proxy);
    const problems = [
      ...(proxyContainer === undefined ? ['the workload has no forward-auth proxy'] : []),
      ...serviceExposures(objects, surface),
      ...routeBypasses(objects, proxy),
      ...policyAdmissions(objects, surface),
    ];
    const { clients } = surface;
    out.push(
      result(
        'auth-exposes-only-proxy',
        workload ?? name,
        problems.length === 0,
        problems.length === 0
          ? clients.length > 0
            ? `the Gateway reaches only the proxy port ${proxy}; the fronted port only ${clients.join(', ')}`
            : `only the proxy port ${proxy} is exposed`
          : problems.join('; '),
      ),
    );
  }
  return out;
};

/** Services of the normative VPN class have `egress: vpn`, a gateway policy and no world allow. */
export const checkVpnClass: Check = (input) => {
  const out: CheckResult[] = [];
  for (const name of input.platform.vpn.services) {
    const objects = input.objects.get(name);
    const definition = serviceDef(input, name);
    if (objects === undefined && definition === undefined) continue;
    const problems: string[] = [];
    if (definition !== undefined && definition.egress !== 'vpn')
      problems.push(`${name} is VPN-class but declares egress: ${definition.egress}`);
    const list = objects ?? [];
    if (byKind(list, 'CiliumEgressGatewayPolicy').length === 0)
      problems.push('no CiliumEgressGatewayPolicy steers it through the VPN gateway');
    const world = byKind(list, 'CiliumNetworkPolicy').some((p) =>
      asArray(field(p, 'spec', 'egress')).some((rule) =>
        asArray(field(rule, 'toEntities')).some((e) => e === 'world' || e === 'all'),
      ),
    );
    if (world) problems.push('a network policy allows egress to world, a path around the VPN');
    out.push(
      result(
        'vpn-class-services-use-vpn',
        `service ${name}`,
        problems.length === 0,
        problems.length === 0 ? 'egress only through the VPN gateway' : problems.join('; '),
      ),
    );
  }
  return out;
};

/**
 * A Deployment↔StatefulSet flip of a service with Longhorn storage is refused unless the
 * definition acknowledges it: the claims change names (`config` ↔ `config-<pod>-0`), so the new
 * workload would come up on empty volumes.
 */
export const checkStorageMigration: Check = (input) => {
  const out: CheckResult[] = [];
  for (const [name, objects] of input.objects) {
    const before = input.previousWorkloads.get(name);
    const now = workloadOf(objects)?.kind;
    const definition = serviceDef(input, name);
    if (before === undefined || now === undefined || definition === undefined) continue;
    if (!definition.storage.some((s) => s.class === 'longhorn')) continue;
    const flip =
      before !== now && [before, now].every((k) => k === 'Deployment' || k === 'StatefulSet');
    const ok = !flip || definition.availability.acknowledgeStorageMigration;
    out.push(
      result(
        'storage-migration-acknowledged',
        `${now} ${name}/${name}`,
        ok,
        !flip
          ? `still a ${now}`
          : ok
            ? `${before} → ${now} acknowledged (availability.acknowledgeStorageMigration)`
            : `${before} → ${now} would bring ${name} back on empty Longhorn volumes; migrate the data and set availability.acknowledgeStorageMigration: true`,
      ),
    );
  }
  return out;
};

/** Every check of this file, in report order. */
export const OBJECT_CHECKS: readonly Check[] = [
  checkRouteDns,
  checkPortsResolve,
  checkDisruptionBudget,
  checkBulkBinding,
  checkPodSettings,
  checkAuthSurface,
  checkVpnClass,
  checkStorageMigration,
];

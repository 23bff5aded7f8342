/** Readers for metadata, Namespace, Pod and Server. */
import { fromLabelSelector, validateLabels } from '../../selector/index.js';
import { DEFAULT_POLICIES, PROXY_PROTOCOLS } from '../types.js';
import type {
  ContainerPort,
  DefaultPolicy,
  Namespace,
  ObjectMeta,
  Pod,
  Probe,
  ProxyProtocol,
  Server,
} from '../types.js';
import type { Path, ReadContext } from './read-context.js';
import { isRecord } from './read-context.js';
import { formatPath } from './yaml-docs.js';
import { pushAll } from '../../base/index.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** An IANA service name, the form of a named container port. */
const PORT_NAME = /^(?=.*[a-z])[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/**
 * Reads `kind`, `apiVersion` and `metadata`. Namespaced objects without a namespace land in
 * `fallbackNamespace` (`default` unless `-n` or labelwise.yaml says otherwise), as `kubectl
 * apply [-n]` would put them.
 */
export function readMeta(
  ctx: ReadContext,
  kind: string,
  apiVersion: string,
  namespaced: boolean,
  fallbackNamespace = 'default',
): ObjectMeta | undefined {
  const name = ctx.string(['metadata', 'name'], { required: true, nonEmpty: true });
  if (name !== undefined && (name.length > 253 || !DNS_SUBDOMAIN.test(name))) {
    ctx.fail(
      'POLICY_INVALID_NAME',
      ['metadata', 'name'],
      `name ${JSON.stringify(name)} must be a lowercase DNS subdomain`,
    );
  }
  const namespace = namespaced
    ? (ctx.string(['metadata', 'namespace'], { nonEmpty: true }) ?? fallbackNamespace)
    : '';
  const labels = ctx.stringMap(['metadata', 'labels']);
  for (const error of validateLabels(labels, 'kubernetes')) {
    ctx.fail(
      'POLICY_INVALID_LABEL',
      ['metadata', 'labels', error.source.label ?? ''],
      error.message,
    );
  }
  const annotations = ctx.stringMap(['metadata', 'annotations']);
  let created = '';
  const stamp = ctx.string(['metadata', 'creationTimestamp']);
  if (stamp !== undefined) {
    const time = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(stamp)
      ? Date.parse(stamp)
      : NaN;
    if (Number.isNaN(time)) {
      ctx.fail(
        'POLICY_INVALID_FIELD',
        ['metadata', 'creationTimestamp'],
        `creationTimestamp ${JSON.stringify(stamp)} is not an RFC 3339 time`,
        'write it like 2024-05-01T10:00:00Z',
      );
    } else {
      // Normalised to UTC so string order is time order.
      created = new Date(time).toISOString();
    }
  }
  if (name === undefined) return undefined;
  ctx.object = namespaced ? `${kind} ${namespace}/${name}` : `${kind} ${name}`;
  return {
    kind,
    apiVersion,
    name,
    namespace: namespaced ? namespace : name,
    labels,
    annotations,
    created,
    at: ctx.at([]),
  };
}

export function readNamespace(ctx: ReadContext, meta: ObjectMeta): Namespace {
  void ctx;
  return { meta };
}

/** A port given as a number (1–65535) or a container-port name. */
export function readPort(
  ctx: ReadContext,
  path: Path,
  required: boolean,
): number | string | undefined {
  const value = ctx.get(path);
  if (value === undefined || value === null) {
    if (required) ctx.fail('POLICY_MISSING_FIELD', path, `${formatPath(path)} is required`);
    return undefined;
  }
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 1 || value > 65535) {
      return ctx.fail(
        'POLICY_INVALID_PORT',
        path,
        `port ${value} must be an integer from 1 to 65535`,
      );
    }
    return value;
  }
  if (typeof value === 'string') {
    if (/^\d+$/.test(value)) {
      return ctx.fail(
        'POLICY_INVALID_PORT',
        path,
        `port ${JSON.stringify(value)} is a quoted number`,
        'write the port without quotes',
      );
    }
    if (value.length > 15 || !PORT_NAME.test(value)) {
      return ctx.fail(
        'POLICY_INVALID_PORT',
        path,
        `port name ${JSON.stringify(value)} must be at most 15 lowercase letters, digits or '-', with a letter`,
      );
    }
    return value;
  }
  return ctx.fail('POLICY_INVALID_PORT', path, `port must be a number or a port name`);
}

const PROBES = [
  ['livenessProbe', 'liveness'],
  ['readinessProbe', 'readiness'],
  ['startupProbe', 'startup'],
] as const;

/**
 * Reads a pod spec at `base` (`['spec']` for a Pod; a workload's pod template elsewhere). As
 * Linkerd's index does: init containers (native sidecars) count with the containers; only TCP
 * ports are named ports (a UDP port keeps its number, not its name); a probe's named port
 * resolves within its own container (case-insensitively) and a probe that names no such port is
 * left out; a probe path drops its query string.
 */
export function readPod(ctx: ReadContext, meta: ObjectMeta, base: Path = ['spec']): Pod {
  const ports: ContainerPort[] = [];
  const probes: Probe[] = [];
  for (const field of ['containers', 'initContainers'] as const) {
    (ctx.list([...base, field]) ?? []).forEach((container, c) => {
      if (!isRecord(container))
        return void ctx.fail(
          'POLICY_INVALID_FIELD',
          [...base, field, c],
          'a container must be a mapping',
        );
      const containerName = ctx.string([...base, field, c, 'name']) ?? `#${c}`;
      const own: ContainerPort[] = [];
      (ctx.list([...base, field, c, 'ports']) ?? []).forEach((_, p) => {
        const at = [...base, field, c, 'ports', p];
        const port = readPort(ctx, [...at, 'containerPort'], true);
        if (typeof port === 'string')
          return void ctx.fail(
            'POLICY_INVALID_PORT',
            [...at, 'containerPort'],
            'containerPort must be a number',
          );
        const name = ctx.string([...at, 'name']);
        const protocol = ctx.string([...at, 'protocol']) ?? 'TCP';
        if (port === undefined) return;
        const named = name !== undefined && protocol.toUpperCase() === 'TCP';
        own.push(named ? { name, port } : { port });
      });
      pushAll(ports, own);
      for (const [probeField, kind] of PROBES) {
        const at = [...base, field, c, probeField, 'httpGet'];
        if (ctx.record(at) === undefined) continue;
        const written = readPort(ctx, [...at, 'port'], true);
        const raw = ctx.string([...at, 'path']) ?? '/';
        const path = probePath(raw);
        const port =
          typeof written === 'string'
            ? own.find(
                (p) => p.name !== undefined && p.name.toLowerCase() === written.toLowerCase(),
              )?.port
            : written;
        if (port !== undefined) probes.push({ kind, container: containerName, port, path });
      }
    });
  }
  return { meta, ports, probes };
}

/** The path part of a probe's `path` (what the proxy sees as the request path). */
function probePath(raw: string): string {
  const cut = raw.search(/[?#]/);
  const path = cut < 0 ? raw : raw.slice(0, cut);
  return path === '' ? '/' : path;
}

/**
 * An ExternalWorkload (workload.linkerd.io): a meshed VM or host. Its named ports come from
 * `spec.ports` (TCP only); it has no probes.
 */
export function readExternalWorkload(ctx: ReadContext, meta: ObjectMeta): Pod {
  const ports: ContainerPort[] = [];
  (ctx.list(['spec', 'ports']) ?? []).forEach((_, p) => {
    const at = ['spec', 'ports', p];
    const port = readPort(ctx, [...at, 'port'], true);
    if (typeof port === 'string')
      return void ctx.fail('POLICY_INVALID_PORT', [...at, 'port'], 'port must be a number');
    const name = ctx.string([...at, 'name']);
    const protocol = ctx.string([...at, 'protocol']) ?? 'TCP';
    if (port === undefined) return;
    ports.push(name !== undefined && protocol.toUpperCase() === 'TCP' ? { name, port } : { port });
  });
  return { meta, ports, probes: [], external: true };
}

export function readServer(ctx: ReadContext, meta: ObjectMeta): Server | undefined {
  const hasPods = ctx.has(['spec', 'podSelector']);
  const hasExternal = ctx.has(['spec', 'externalWorkloadSelector']);
  if (hasPods && hasExternal) {
    ctx.fail(
      'POLICY_INVALID_SELECTOR',
      ['spec', 'externalWorkloadSelector'],
      'podSelector and externalWorkloadSelector cannot both be set',
      'write one Server for the pods and another for the external workloads',
    );
    // Which versions have externalWorkloadSelector is the CRD's to say (v1beta2 and v1beta3).
  } else if (!hasPods && !hasExternal) {
    ctx.fail(
      'POLICY_MISSING_FIELD',
      ['spec'],
      'spec.podSelector is required',
      'use podSelector: {} to select every pod of the namespace',
    );
  }
  const field = hasExternal && !hasPods ? 'externalWorkloadSelector' : 'podSelector';
  const { selector, errors } = fromLabelSelector(ctx.get(['spec', field]), {
    path: `spec.${field}`,
  });
  for (const error of errors) {
    const path = (error.source.path ?? 'spec.podSelector')
      .split(/\.|(?=\[)/)
      .map((p) => (p.startsWith('[') ? Number(p.slice(1, -1)) : p));
    ctx.fail('POLICY_INVALID_SELECTOR', path, error.message);
  }
  const port = readPort(ctx, ['spec', 'port'], true);
  const protocol = ctx.string(['spec', 'proxyProtocol']) ?? 'unknown';
  if (!(PROXY_PROTOCOLS as readonly string[]).includes(protocol)) {
    ctx.fail(
      'POLICY_INVALID_PROTOCOL',
      ['spec', 'proxyProtocol'],
      `unknown proxyProtocol ${JSON.stringify(protocol)}, expected one of ${PROXY_PROTOCOLS.join(', ')}`,
    );
  }
  const accessPolicy = ctx.string(['spec', 'accessPolicy']) ?? 'deny';
  if (!(DEFAULT_POLICIES as readonly string[]).includes(accessPolicy)) {
    ctx.fail(
      'POLICY_INVALID_ACCESS_POLICY',
      ['spec', 'accessPolicy'],
      `unknown accessPolicy ${JSON.stringify(accessPolicy)}, expected one of ${DEFAULT_POLICIES.join(', ')}`,
    );
  }
  if (selector === undefined || port === undefined || ctx.problems.length > 0) return undefined;
  return {
    meta,
    podSelector: selector,
    ...(field === 'externalWorkloadSelector' ? { selects: 'externalWorkloads' as const } : {}),
    port,
    proxyProtocol: protocol as ProxyProtocol,
    accessPolicy: accessPolicy as DefaultPolicy,
  };
}

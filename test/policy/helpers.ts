// Builders for inline policy fixtures: YAML text in, a compiled model out, through the real
// loader (positions, validation) and compiler.
import { compilePolicy, decide, parseYamlDocs, readResources } from '../../src/policy/index.js';
import type {
  Decision,
  DecideInput,
  PolicyModel,
  PolicyProblem,
  SettingsInput,
} from '../../src/policy/index.js';

export function load(
  yaml: string,
  file = 'inline.yaml',
): { model: PolicyModel; problems: PolicyProblem[] } {
  const parsed = parseYamlDocs(yaml, file);
  const read = readResources(parsed.docs);
  return { model: compilePolicy(read.resources), problems: [...parsed.problems, ...read.problems] };
}

export function model(yaml: string, settings: SettingsInput = {}): PolicyModel {
  const parsed = parseYamlDocs(yaml, 'inline.yaml');
  const read = readResources(parsed.docs);
  const problems = [...parsed.problems, ...read.problems];
  if (problems.length > 0)
    throw new Error(`fixture has problems: ${JSON.stringify(problems, null, 2)}`);
  return compilePolicy(read.resources, settings);
}

export const ID = (sa: string, ns = 'ns'): string =>
  `${sa}.${ns}.serviceaccount.identity.linkerd.cluster.local`;

export function ask(m: PolicyModel, input: Partial<DecideInput> & { path: string }): Decision {
  return decide(m, { pod: 'ns/pod', port: 8080, clientIp: '10.1.1.1', ...input });
}

/** A pod `ns/pod` with labels, named ports and HTTP probes. */
export function pod(
  options: {
    name?: string;
    labels?: Record<string, string>;
    ports?: [string, number][];
    probes?: [string, number | string][];
    annotations?: Record<string, string>;
  } = {},
): string {
  const labels = options.labels ?? { app: 'web' };
  const ports = options.ports ?? [['http', 8080]];
  const probes = options.probes ?? [];
  return `
apiVersion: v1
kind: Pod
metadata:
  name: ${options.name ?? 'pod'}
  namespace: ns
  labels: ${JSON.stringify(labels)}
  annotations: ${JSON.stringify(options.annotations ?? {})}
spec:
  containers:
    - name: app
      ports: ${JSON.stringify(ports.map(([name, containerPort]) => ({ name, containerPort })))}
${probes.map(([path, port], i) => `      ${['livenessProbe', 'readinessProbe', 'startupProbe'][i]}:\n        httpGet: { path: ${JSON.stringify(path)}, port: ${JSON.stringify(port)} }`).join('\n')}
---`;
}

export function server(
  name: string,
  options: {
    selector?: string;
    port?: number | string;
    protocol?: string;
    access?: string;
    created?: string;
    labels?: Record<string, string>;
  } = {},
): string {
  return `
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata:
  name: ${name}
  namespace: ns
  labels: ${JSON.stringify(options.labels ?? {})}
${options.created === undefined ? '' : `  creationTimestamp: "${options.created}"`}
spec:
  podSelector: ${options.selector ?? '{ matchLabels: { app: web } }'}
  port: ${JSON.stringify(options.port ?? 8080)}
  proxyProtocol: ${options.protocol ?? 'HTTP/1'}
${options.access === undefined ? '' : `  accessPolicy: ${options.access}`}
---`;
}

export function route(
  name: string,
  serverName: string,
  rules: string,
  options: {
    created?: string;
    hostnames?: string[];
    kind?: string;
    api?: string;
    labels?: Record<string, string>;
  } = {},
): string {
  return `
apiVersion: ${options.api ?? 'gateway.networking.k8s.io/v1'}
kind: ${options.kind ?? 'HTTPRoute'}
metadata:
  name: ${name}
  namespace: ns
  labels: ${JSON.stringify(options.labels ?? {})}
${options.created === undefined ? '' : `  creationTimestamp: "${options.created}"`}
spec:
  parentRefs: [{ group: policy.linkerd.io, kind: Server, name: ${serverName} }]
  hostnames: ${JSON.stringify(options.hostnames ?? [])}
  rules: ${rules}
---`;
}

export function policy(
  name: string,
  target: { kind: string; name: string; group?: string },
  refs: { kind: string; name: string; group?: string; namespace?: string }[],
): string {
  const group =
    target.group ??
    (target.kind === 'Server'
      ? 'policy.linkerd.io'
      : target.kind === 'Namespace'
        ? ''
        : target.kind.startsWith('HttpRoute')
          ? 'policy.labelwise.dev'
          : 'gateway.networking.k8s.io');
  return `
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: { name: ${name}, namespace: ns }
spec:
  targetRef: { group: "${group}", kind: ${target.kind}, name: ${target.name} }
  requiredAuthenticationRefs: ${JSON.stringify(refs.map((r) => ({ group: r.group ?? (r.kind === 'ServiceAccount' ? '' : 'policy.linkerd.io'), ...r })))}
---`;
}

export function mtls(name: string, identities: string[]): string {
  return `
apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: { name: ${name}, namespace: ns }
spec:
  identities: ${JSON.stringify(identities)}
---`;
}

export function network(name: string, networks: { cidr: string; except?: string[] }[]): string {
  return `
apiVersion: policy.linkerd.io/v1alpha1
kind: NetworkAuthentication
metadata: { name: ${name}, namespace: ns }
spec:
  networks: ${JSON.stringify(networks)}
---`;
}

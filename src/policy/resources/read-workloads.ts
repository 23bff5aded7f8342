/**
 * Workloads as the pods they create. Real repositories hold Deployments, StatefulSets,
 * DaemonSets, ReplicaSets, Jobs and CronJobs rather than bare Pods; each replica is created from
 * the pod template, so one pod stands for all of them. It is named `<short>/<name>` in the
 * workload's namespace (`booksapp/deploy/authors`, as kubectl writes it), carries the template's
 * labels and annotations (not the workload's own: Kubernetes does not copy those to pods), and
 * inherits the namespace's `config.linkerd.io/*` annotations in the compiler, as the proxy
 * injector does. The template is read by the Pod reader itself, so every rule about
 * containers, ports and probes applies unchanged; problems point into the template
 * (`spec.template.spec.containers[0]…`).
 */
import type { ObjectMeta, Pod } from '../types.js';
import type { Path } from './read-context.js';
import { ReadContext, isRecord } from './read-context.js';
import { readPod } from './read-core.js';
import type { YamlDoc } from './yaml-docs.js';
import { formatPath } from './yaml-docs.js';
import { validateLabels } from '../../selector/index.js';

interface WorkloadKind {
  readonly apiVersion: string;
  /** kubectl's short name, the first segment of the pod's name. */
  readonly short: string;
  /** Where the pod template sits in the object. */
  readonly template: Path;
}

/** The workload kinds read, by kind. */
export const WORKLOAD_KINDS: Readonly<Record<string, WorkloadKind>> = Object.freeze({
  Deployment: { apiVersion: 'apps/v1', short: 'deploy', template: ['spec', 'template'] },
  StatefulSet: { apiVersion: 'apps/v1', short: 'sts', template: ['spec', 'template'] },
  DaemonSet: { apiVersion: 'apps/v1', short: 'ds', template: ['spec', 'template'] },
  ReplicaSet: { apiVersion: 'apps/v1', short: 'rs', template: ['spec', 'template'] },
  Job: { apiVersion: 'batch/v1', short: 'job', template: ['spec', 'template'] },
  CronJob: {
    apiVersion: 'batch/v1',
    short: 'cronjob',
    template: ['spec', 'jobTemplate', 'spec', 'template'],
  },
});

/** Every name kubectl accepts for a workload kind, to its short name. */
const ALIASES: Readonly<Record<string, string>> = Object.freeze({
  deploy: 'deploy',
  deployment: 'deploy',
  deployments: 'deploy',
  sts: 'sts',
  statefulset: 'sts',
  statefulsets: 'sts',
  ds: 'ds',
  daemonset: 'ds',
  daemonsets: 'ds',
  rs: 'rs',
  replicaset: 'rs',
  replicasets: 'rs',
  job: 'job',
  jobs: 'job',
  cj: 'cronjob',
  cronjob: 'cronjob',
  cronjobs: 'cronjob',
});

function kindOf(kind: string): WorkloadKind | undefined {
  return Object.prototype.hasOwnProperty.call(WORKLOAD_KINDS, kind)
    ? WORKLOAD_KINDS[kind]
    : undefined;
}

/** Is this a workload kind at the apiVersion read? */
export function isWorkload(kind: string, apiVersion: string): boolean {
  return kindOf(kind)?.apiVersion === apiVersion;
}

/**
 * A pod reference as the user wrote it (`booksapp/deployment/authors`,
 * `booksapp/deploy/authors`, `booksapp/authors-0`) in the form pods are named by
 * (`booksapp/deploy/authors`). A reference that names no workload kind is returned unchanged.
 */
export function normalizePodRef(ref: string): string {
  const parts = ref.split('/');
  if (parts.length !== 3) return ref;
  const [namespace, kind, name] = parts as [string, string, string];
  const short = Object.prototype.hasOwnProperty.call(ALIASES, kind.toLowerCase())
    ? ALIASES[kind.toLowerCase()]
    : undefined;
  return short === undefined ? ref : `${namespace}/${short}/${name}`;
}

/**
 * The template as a document of its own, with lines and paths still pointing into the file:
 * every position function of the document is shifted by the template's path.
 */
function templateDoc(doc: YamlDoc, prefix: Path, value: unknown): YamlDoc {
  const shifted = (path: Path): Path => [...prefix, ...path];
  const out: Record<string, unknown> = { ...doc, value };
  for (const [key, fn] of Object.entries(doc)) {
    if (typeof fn === 'function')
      out[key] = (path: Path): unknown => (fn as (p: Path) => unknown).call(doc, shifted(path));
  }
  return out as unknown as YamlDoc;
}

/**
 * Reads a workload's pod template as one pod. Undefined (with a problem on `ctx`) when the
 * template is missing; problems inside the template are reported at their full path.
 */
export function readWorkload(ctx: ReadContext, meta: ObjectMeta): Pod | undefined {
  const kind = kindOf(meta.kind);
  if (kind === undefined) return undefined;
  const template = ctx.get(kind.template);
  if (!isRecord(template)) {
    return ctx.fail(
      'POLICY_MISSING_FIELD',
      kind.template,
      `${formatPath(kind.template)} is required: it is the pod every replica is made from`,
    );
  }
  const inner = new ReadContext(templateDoc(ctx.doc, kind.template, template), ctx.object);
  const labels = inner.stringMap(['metadata', 'labels']);
  for (const error of validateLabels(labels, 'kubernetes')) {
    inner.fail(
      'POLICY_INVALID_LABEL',
      ['metadata', 'labels', error.source.label ?? ''],
      error.message,
    );
  }
  const annotations = inner.stringMap(['metadata', 'annotations']);
  const podMeta: ObjectMeta = {
    ...meta,
    name: `${kind.short}/${meta.name}`,
    labels,
    annotations,
  };
  const pod = readPod(inner, podMeta);
  const base = formatPath(kind.template);
  for (const problem of inner.problems) {
    ctx.problems.push({
      ...problem,
      path: problem.path === undefined ? base : `${base}.${problem.path}`,
    });
  }
  return pod;
}

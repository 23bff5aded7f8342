/**
 * "Every selector selects its own workload's pods and nothing else in the namespace", proved
 * with the selector core. For each Service, PodDisruptionBudget, anti-affinity term, workload
 * selector and workload network-policy `endpointSelector`:
 *
 * 1. it matches the pod template of the service's own workload (concrete, a `LabelIndex` query
 *    over every pod that can exist);
 * 2. it matches none of the other pods that can exist in the namespace: other workloads' pods
 *    transplanted here, CDI importer pods of VM disks (they carry the DataVolume's labels), and a
 *    pod with no labels at all (a debug pod) — concrete;
 * 3. it cannot overlap any pod whose name label differs or whose component is not the workload
 *    (`overlap`, a proof over every possible label set, with a witness when it fails).
 *
 * The namespace baseline policy is the one deliberate exception: it must select every pod.
 */
import {
  LabelIndex,
  fromLabelSelector,
  isEverything,
  labelsFrom,
  matches,
  overlap,
  requirement,
  selectorOf,
} from '../../selector/index.js';
import type { Labels, Selector } from '../../selector/index.js';
import { COMPONENT_LABEL, NAME_LABEL, WORKLOAD_COMPONENT } from '../render/labels.js';
import { BASELINE_POLICY } from '../render/namespace.js';
import { DISK_LABEL, IMPORTER_POLICY } from '../render/network-policy.js';
import type { KubeObject } from '../types.js';
import { pushAll } from '../../base/index.js';
import type { CheckResult, ConformanceInput } from './model.js';
import { asArray, asRecord, describeObject, field, workloadOf } from './model.js';

export const SELECTOR_CHECK = 'selectors-select-own-pods';

/** The labels of the pods a workload object creates. */
export function podTemplateLabels(workload: KubeObject): Labels {
  const labels = asRecord(field(workload, 'spec', 'template', 'metadata', 'labels')) ?? {};
  return labelsFrom(
    Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

/** Pods CDI starts to import a VM's disks: the DataVolume's labels plus CDI's own. */
export function importerPods(objects: readonly KubeObject[]): Labels[] {
  const pods: Labels[] = [];
  for (const object of objects) {
    if (object.kind !== 'VirtualMachine') continue;
    for (const template of asArray(field(object, 'spec', 'dataVolumeTemplates'))) {
      const labels = asRecord(field(template, 'metadata', 'labels')) ?? {};
      pods.push(
        labelsFrom([
          ...Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === 'string'),
          ['app', 'containerized-data-importer'],
          ['cdi.kubevirt.io', 'importer'],
        ]),
      );
    }
  }
  return pods;
}

/** A pod of the universe: the service whose workload it belongs to, if any. */
interface PodRef {
  readonly owner: string | undefined;
  readonly what: string;
}

interface SelectorUse {
  readonly object: KubeObject;
  readonly where: string;
  readonly value: unknown;
  /** Service selectors are plain maps; the rest are LabelSelector objects. */
  readonly form: 'map' | 'labelSelector';
}

function selectorUses(objects: readonly KubeObject[]): SelectorUse[] {
  const uses: SelectorUse[] = [];
  for (const object of objects) {
    switch (object.kind) {
      case 'Service':
        uses.push({
          object,
          where: 'spec.selector',
          value: field(object, 'spec', 'selector'),
          form: 'map',
        });
        break;
      case 'PodDisruptionBudget':
        uses.push({
          object,
          where: 'spec.selector',
          value: field(object, 'spec', 'selector'),
          form: 'labelSelector',
        });
        break;
      case 'Deployment':
      case 'StatefulSet':
        uses.push({
          object,
          where: 'spec.selector',
          value: field(object, 'spec', 'selector'),
          form: 'labelSelector',
        });
        asArray(
          field(
            object,
            'spec',
            'template',
            'spec',
            'affinity',
            'podAntiAffinity',
            'requiredDuringSchedulingIgnoredDuringExecution',
          ),
        ).forEach((term, i) =>
          uses.push({
            object,
            where: `podAntiAffinity.required[${i}].labelSelector`,
            value: field(term, 'labelSelector'),
            form: 'labelSelector',
          }),
        );
        break;
      case 'CiliumNetworkPolicy':
        if (object.metadata.name !== BASELINE_POLICY && object.metadata.name !== IMPORTER_POLICY) {
          uses.push({
            object,
            where: 'spec.endpointSelector',
            value: field(object, 'spec', 'endpointSelector'),
            form: 'labelSelector',
          });
        }
        break;
    }
  }
  return uses;
}

function toSelector(use: SelectorUse): { selector?: Selector; problem?: string } {
  if (use.form === 'map') {
    const map = asRecord(use.value);
    // A Service without a selector selects no pods: its endpoints are managed by hand.
    if (map === undefined || Object.keys(map).length === 0)
      return { problem: 'has no selector, so it selects none of its pods' };
    const { selector, errors } = fromLabelSelector({ matchLabels: map }, { path: use.where });
    return selector === undefined
      ? { problem: errors.map((e) => e.message).join('; ') }
      : { selector };
  }
  const { selector, errors } = fromLabelSelector(use.value, { path: use.where });
  return selector === undefined
    ? { problem: errors.map((e) => e.message).join('; ') }
    : { selector };
}

/** Every pod that can exist, indexed once: each selector is then one index query. */
function podUniverse(
  objectsByService: ConformanceInput['objects'],
  workloads: ReadonlyMap<string, Labels>,
): LabelIndex<PodRef> {
  const universe = new LabelIndex<PodRef>();
  universe.add({ owner: undefined, what: 'an unlabelled pod' }, labelsFrom({}));
  for (const [service, objects] of objectsByService) {
    const pod = workloads.get(service);
    if (pod !== undefined) universe.add({ owner: service, what: `a pod of ${service}` }, pod);
    importerPods(objects).forEach((labels, i) =>
      universe.add({ owner: undefined, what: `a CDI importer pod in ${service} (#${i})` }, labels),
    );
  }
  return universe;
}

/**
 * "Any pod that is not this service's workload": the name differs (or is absent), or the
 * component is not the workload (or is absent).
 */
function foreignPods(service: string): readonly Selector[] {
  return [
    selectorOf([requirement(NAME_LABEL, 'NotIn', [service])]),
    selectorOf([requirement(COMPONENT_LABEL, 'NotIn', [WORKLOAD_COMPONENT])]),
  ];
}

/** Why one selector use does not select exactly the pods of `service`, or undefined. */
function selectorProblem(
  use: SelectorUse,
  service: string,
  own: Labels,
  universe: LabelIndex<PodRef>,
  foreign: readonly Selector[],
): string | undefined {
  const { selector, problem } = toSelector(use);
  if (selector === undefined) return problem ?? 'is not a valid selector';
  const selected = universe.select(selector);
  if (!selected.some((ref) => ref.owner === service))
    return `does not select the pods of its own workload (labels ${JSON.stringify(own)})`;
  const stray = selected.find((ref) => ref.owner !== service);
  if (stray !== undefined)
    return `also selects ${stray.what} (labels ${JSON.stringify(universe.get(stray))})`;
  for (const pods of foreign) {
    const leak = overlap(selector, pods);
    if (leak.overlap)
      return `can select a pod that is not ${service}'s workload, e.g. one labelled ${JSON.stringify(leak.witness)}`;
  }
  return undefined;
}

/**
 * The CDI importer policy selects exactly the importer pods that download (not a blank disk's),
 * never a workload's.
 */
function checkImporterPolicies(
  service: string,
  objects: readonly KubeObject[],
  universe: LabelIndex<PodRef>,
): CheckResult[] {
  const importers = importerPods(objects);
  const blank = importers.filter((pod) => pod[DISK_LABEL] === 'blank');
  const downloading = importers.filter((pod) => pod[DISK_LABEL] !== 'blank');
  return objects
    .filter((o) => o.kind === 'CiliumNetworkPolicy' && o.metadata.name === IMPORTER_POLICY)
    .map((policy) => {
      const { selector } = fromLabelSelector(field(policy, 'spec', 'endpointSelector'), {
        path: 'spec.endpointSelector',
      });
      const selectsImporters =
        selector !== undefined &&
        downloading.length > 0 &&
        downloading.every((pod) => matches(selector, pod)) &&
        !blank.some((pod) => matches(selector, pod));
      const stray =
        selector === undefined
          ? undefined
          : universe.select(selector).find((ref) => ref.owner !== undefined);
      const ok = selectsImporters && stray === undefined;
      return {
        name: SELECTOR_CHECK,
        ok,
        object: `${describeObject(policy)} spec.endpointSelector`,
        message: ok
          ? `selects exactly the CDI importer pods of ${service}`
          : stray !== undefined
            ? `also selects ${stray.what}`
            : `does not select the CDI importer pods of ${service}`,
      };
    });
}

/** The baseline does the opposite of every other selector: it covers every pod of the namespace. */
function checkBaselines(objects: readonly KubeObject[]): CheckResult[] {
  return objects
    .filter((o) => o.kind === 'CiliumNetworkPolicy' && o.metadata.name === BASELINE_POLICY)
    .map((policy) => {
      const { selector } = fromLabelSelector(field(policy, 'spec', 'endpointSelector'), {
        path: 'spec.endpointSelector',
      });
      const everything = selector !== undefined && isEverything(selector);
      return {
        name: SELECTOR_CHECK,
        ok: everything,
        object: `${describeObject(policy)} spec.endpointSelector`,
        message: everything
          ? 'the baseline selects every pod of the namespace'
          : 'the baseline must select every pod of the namespace ({})',
      };
    });
}

/** Runs the selector check over every service directory. */
export function checkSelectors(input: ConformanceInput): CheckResult[] {
  const results: CheckResult[] = [];
  const workloads = new Map<string, Labels>();
  for (const [service, objects] of input.objects) {
    const workload = workloadOf(objects);
    if (workload !== undefined) workloads.set(service, podTemplateLabels(workload));
  }
  const universe = podUniverse(input.objects, workloads);
  for (const [service, objects] of input.objects) {
    const own = workloads.get(service);
    const foreign = foreignPods(service);
    for (const use of selectorUses(objects)) {
      const problem =
        own === undefined
          ? `there is no workload in ${service} for it to select`
          : selectorProblem(use, service, own, universe, foreign);
      results.push({
        name: SELECTOR_CHECK,
        ok: problem === undefined,
        object: `${describeObject(use.object)} ${use.where}`,
        message: problem ?? `selects exactly the pods of ${service}`,
      });
    }
    pushAll(results, checkImporterPolicies(service, objects, universe));
    pushAll(results, checkBaselines(objects));
  }
  return results;
}

/**
 * Network-policy peers: every `toEndpoints` / `fromEndpoints` entry of a workload policy that
 * names another catalog service's namespace must select exactly that service's workload pods, as
 * Cilium sees them (pod labels plus the namespace label): all of them, and none of the other pods
 * that can exist there (an unlabelled pod, CDI importer pods) or elsewhere (other services' pods).
 * Peers outside the catalog (the DNS resolver, Prometheus, the Gateway) are the platform's and
 * are not judged here.
 */
import { LabelIndex, fromLabelSelector, labelsFrom } from '../../selector/index.js';
import type { Labels } from '../../selector/index.js';
import { CILIUM_NAMESPACE_LABEL } from '../render/labels.js';
import { BASELINE_POLICY } from '../render/namespace.js';
import type { CheckResult, ConformanceInput } from './model.js';
import { asArray, asRecord, describeObject, field, workloadOf } from './model.js';
import { importerPods, podTemplateLabels } from './check-selectors.js';

export const PEER_CHECK = 'peer-selectors-select-their-service';

/** Labels of a pod as a Cilium endpoint in `namespace`. */
function asEndpoint(pod: Labels, namespace: string): Labels {
  return labelsFrom([...Object.entries(pod), [CILIUM_NAMESPACE_LABEL, namespace]]);
}

export function checkPeers(input: ConformanceInput): CheckResult[] {
  const results: CheckResult[] = [];
  // Every endpoint that can exist in a catalog namespace, tagged with the service it belongs to.
  const endpoints = new LabelIndex<{ owner: string | undefined; what: string }>();
  const workloadPods = new Map<string, Labels>();
  for (const [service, objects] of input.objects) {
    const workload = workloadOf(objects);
    if (workload !== undefined) {
      const pod = asEndpoint(podTemplateLabels(workload), service);
      workloadPods.set(service, pod);
      endpoints.add({ owner: service, what: `the pods of ${service}` }, pod);
    }
    endpoints.add(
      { owner: undefined, what: `an unlabelled pod in ${service}` },
      asEndpoint(labelsFrom({}), service),
    );
    importerPods(objects).forEach((pod, i) =>
      endpoints.add(
        { owner: undefined, what: `a CDI importer pod in ${service} (#${i})` },
        asEndpoint(pod, service),
      ),
    );
  }
  for (const objects of input.objects.values()) {
    for (const policy of objects) {
      if (policy.kind !== 'CiliumNetworkPolicy' || policy.metadata.name === BASELINE_POLICY)
        continue;
      const peers: { where: string; value: unknown }[] = [];
      for (const [direction, key] of [
        ['egress', 'toEndpoints'],
        ['ingress', 'fromEndpoints'],
      ] as const) {
        asArray(field(policy, 'spec', direction)).forEach((rule, i) =>
          asArray(field(rule, key)).forEach((value, j) =>
            peers.push({ where: `spec.${direction}[${i}].${key}[${j}]`, value }),
          ),
        );
      }
      for (const peer of peers) {
        const namespace = asRecord(field(peer.value, 'matchLabels'))?.[CILIUM_NAMESPACE_LABEL];
        if (typeof namespace !== 'string' || !input.objects.has(namespace)) continue;
        const object = `${describeObject(policy)} ${peer.where}`;
        // Cilium keys carry a source prefix (`k8s:`), which the kubernetes profile rejects.
        const { selector, errors } = fromLabelSelector(peer.value, {
          path: peer.where,
          profile: 'none',
        });
        if (selector === undefined) {
          results.push({
            name: PEER_CHECK,
            ok: false,
            object,
            message: errors.map((e) => e.message).join('; '),
          });
          continue;
        }
        const selected = endpoints.select(selector);
        const target = workloadPods.get(namespace);
        let message: string | undefined;
        if (target === undefined) message = `${namespace} has no workload to select`;
        else if (!selected.some((e) => e.owner === namespace))
          message = `does not select the pods of ${namespace} (labels ${JSON.stringify(target)})`;
        else {
          const stray = selected.find((e) => e.owner !== namespace);
          if (stray !== undefined)
            message = `also selects ${stray.what} (labels ${JSON.stringify(endpoints.get(stray))})`;
        }
        results.push({
          name: PEER_CHECK,
          ok: message === undefined,
          object,
          message: message ?? `selects exactly the pods of ${namespace}`,
        });
      }
    }
  }
  return results;
}

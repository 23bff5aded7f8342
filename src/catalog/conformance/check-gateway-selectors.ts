/**
 * The VPN egress gateway's pod selector, proved like every other selector of a service: each
 * `CiliumEgressGatewayPolicy` is cluster-scoped, so its `podSelector` must pin the namespace
 * (`io.kubernetes.pod.namespace`) and select the service's own workload pods and nothing else.
 * Selecting too little leaves the pods with no way out at all; selecting too much steers other
 * pods (of this namespace, or any namespace) through the VPN.
 */
import { LabelIndex, fromLabelSelector, labelsFrom, matches } from '../../selector/index.js';
import type { Labels } from '../../selector/index.js';
import { EGRESS_NAMESPACE_LABEL } from '../render/labels.js';
import type { CheckResult, ConformanceInput } from './model.js';
import { asArray, describeObject, field, workloadOf } from './model.js';
import { SELECTOR_CHECK, importerPods, podTemplateLabels } from './check-selectors.js';

/** Labels of a pod as the egress gateway's selector sees it: pod labels plus its namespace. */
function inNamespace(pod: Labels, namespace: string): Labels {
  return labelsFrom([...Object.entries(pod), [EGRESS_NAMESPACE_LABEL, namespace]]);
}

interface Endpoint {
  readonly owner: string | undefined;
  readonly what: string;
}

/** One result per `spec.selectors[i].podSelector` of every gateway policy. */
export function checkGatewaySelectors(input: ConformanceInput): CheckResult[] {
  const results: CheckResult[] = [];
  const policies = [...input.objects].flatMap(([service, objects]) =>
    objects
      .filter((o) => o.kind === 'CiliumEgressGatewayPolicy')
      .map((policy) => ({ service, policy })),
  );
  if (policies.length === 0) return results;
  // Every pod that can exist in a catalog namespace, indexed once (as in check-selectors).
  const pods = new Map<string, Labels>();
  const universe = new LabelIndex<Endpoint>();
  for (const [service, objects] of input.objects) {
    const workload = workloadOf(objects);
    if (workload !== undefined) {
      const pod = podTemplateLabels(workload);
      pods.set(service, pod);
      universe.add({ owner: service, what: `the pods of ${service}` }, inNamespace(pod, service));
    }
    universe.add(
      { owner: undefined, what: `an unlabelled pod in ${service}` },
      inNamespace(labelsFrom({}), service),
    );
    importerPods(objects).forEach((pod, i) =>
      universe.add(
        { owner: undefined, what: `a CDI importer pod in ${service} (#${i})` },
        inNamespace(pod, service),
      ),
    );
  }
  for (const { service, policy } of policies) {
    asArray(field(policy, 'spec', 'selectors')).forEach((entry, i) => {
      const where = `spec.selectors[${i}].podSelector`;
      results.push({
        name: SELECTOR_CHECK,
        object: `${describeObject(policy)} ${where}`,
        ...judge(service, field(entry, 'podSelector'), where, pods.get(service), universe),
      });
    });
  }
  return results;
}

function judge(
  service: string,
  value: unknown,
  where: string,
  own: Labels | undefined,
  universe: LabelIndex<Endpoint>,
): { ok: boolean; message: string } {
  if (own === undefined) return { ok: false, message: `there is no workload in ${service}` };
  // An absent podSelector would select every pod of the cluster: refuse it outright.
  if (value === undefined || value === null)
    return { ok: false, message: 'has no podSelector, so it would select every pod' };
  const { selector, errors } = fromLabelSelector(value, { path: where, profile: 'none' });
  if (selector === undefined)
    return { ok: false, message: errors.map((e) => e.message).join('; ') };
  const selected = universe.select(selector);
  if (!selected.some((e) => e.owner === service))
    return {
      ok: false,
      message: `does not select the pods of ${service} (labels ${JSON.stringify(own)} in namespace ${service}), which then have no way out`,
    };
  const stray = selected.find((e) => e.owner !== service);
  if (stray !== undefined)
    return { ok: false, message: `also steers ${stray.what} through the VPN gateway` };
  // The same labels in a namespace outside the catalog: the selector must pin its namespace.
  if (matches(selector, inNamespace(own, `${service}-elsewhere`)))
    return {
      ok: false,
      message: `also steers pods labelled like ${service}'s in any other namespace through the VPN gateway`,
    };
  return { ok: true, message: `steers exactly the pods of ${service}` };
}

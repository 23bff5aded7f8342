/**
 * Policy findings marked intended, with base's one mechanism (src/base/accepted.ts): the
 * `ignore-check.labelwise.io/<CODE>` annotations of the objects findings name, and the
 * `labelwise.yaml` rules the repository passes in.
 */
import { markAccepted } from '../../base/index.js';
import type { AcceptRule } from '../../base/index.js';
import type { PolicyModel } from '../compile/model.js';
import { objectName } from '../resources/read-context.js';
import type { ObjectMeta, PolicyProblem, PolicyResources } from '../types.js';

/** Every loaded object's annotations, by the name findings give it (`Kind ns/name`). */
export function annotationsByObject(
  resources: PolicyResources,
): Map<string, Readonly<Record<string, string>>> {
  const out = new Map<string, Readonly<Record<string, string>>>();
  for (const list of Object.values(resources) as unknown[]) {
    if (!Array.isArray(list)) continue;
    for (const item of list as { meta?: ObjectMeta }[]) {
      const meta = item.meta;
      if (meta === undefined || Object.keys(meta.annotations).length === 0) continue;
      out.set(objectName(meta), meta.annotations);
    }
  }
  return out;
}

/** `findings` with `accepted` set where an annotation or a `labelwise.yaml` rule accepts one. */
export function acceptPolicyFindings(
  findings: readonly PolicyProblem[],
  model: PolicyModel,
  rules: readonly AcceptRule[] = [],
): PolicyProblem[] {
  return markAccepted(findings, { rules, annotations: annotationsByObject(model.resources) });
}

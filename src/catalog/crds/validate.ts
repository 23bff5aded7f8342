/**
 * Validates rendered custom resources against the upstream schemas stored in `catalog/crds/`
 * (the engine is base's: src/base/crds/upstream-schemas.ts).
 */
import { pushAll } from '../../base/index.js';
import { checkSchema, isNode } from '../../base/crds/upstream-schemas.js';
import type { SchemaProblem, UpstreamValidators } from '../../base/crds/upstream-schemas.js';
import type { KubeObject } from '../types.js';

export type {
  SchemaProblem,
  UpstreamSchemaSource,
  UpstreamValidators,
} from '../../base/crds/upstream-schemas.js';
export { compileUpstream } from '../../base/crds/upstream-schemas.js';

/**
 * Every problem of one rendered object under its upstream schema; `[]` for a kind without one
 * (core kinds are validated by their typed models). A VirtualMachine's `dataVolumeTemplates`
 * are also checked against CDI's DataVolume schema.
 */
export function validateUpstream(
  object: KubeObject,
  validators: UpstreamValidators,
): SchemaProblem[] {
  const validator = validators.kinds.get(`${object.apiVersion} ${object.kind}`);
  if (validator === undefined) return [];
  const name = `${object.kind} ${object.metadata.namespace === undefined ? '' : `${object.metadata.namespace}/`}${object.metadata.name}`;
  const problems = checkSchema(validator, object, name, '');
  if (object.kind === 'VirtualMachine') {
    const dataVolume = validators.kinds.get('cdi.kubevirt.io/v1beta1 DataVolume');
    const templates = isNode(object.spec) ? object.spec.dataVolumeTemplates : undefined;
    if (dataVolume !== undefined && Array.isArray(templates))
      templates.forEach((template, i) =>
        pushAll(
          problems,
          checkSchema(dataVolume, template, name, `spec.dataVolumeTemplates[${i}]`),
        ),
      );
  }
  return problems;
}

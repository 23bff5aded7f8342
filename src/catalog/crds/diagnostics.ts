/**
 * Upstream-schema problems of a rendered set as the shared diagnostic (`CATALOG_INVALID_OBJECT`,
 * pointing at the definition the object was rendered from).
 */
import type { Diagnostic } from '../../base/index.js';
import type { RenderedService, ResolvedService } from '../types.js';
import type { UpstreamValidators } from './validate.js';
import { validateUpstream } from './validate.js';

export function upstreamDiagnostics(
  rendered: readonly RenderedService[],
  services: readonly Pick<ResolvedService, 'name' | 'file'>[],
  validators: UpstreamValidators,
): Diagnostic[] {
  const files = new Map(services.map((s) => [s.name, s.file]));
  const out: Diagnostic[] = [];
  for (const { service, objects } of rendered)
    for (const object of objects)
      for (const problem of validateUpstream(object, validators)) {
        const file = files.get(service);
        out.push({
          module: 'catalog',
          severity: 'error',
          code: 'CATALOG_INVALID_OBJECT',
          object: problem.object,
          ...(file === undefined ? {} : { file }),
          ...(problem.path === '' ? {} : { path: problem.path }),
          message: `${problem.object} does not match its ${problem.schema} schema: ${problem.path === '' ? '' : `${problem.path}: `}${problem.message}`,
        });
      }
  return out;
}

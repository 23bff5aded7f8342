/**
 * Admission by Linkerd's own CRD schema for the object's apiVersion (src/policy/crds/): an
 * unknown field is an error, as under `kubectl apply --validate=strict`. The readers' own checks
 * say more precisely what is wrong with a known field, so a schema problem other than an unknown
 * field is reported only when the reader found nothing: one mistake, one message.
 */
import { checkSchema } from '../../base/crds/upstream-schemas.js';
import { linkerdValidators } from '../crds/linkerd-crds.js';
import type { Path, ReadContext } from './read-context.js';

/** `spec.rules[0].matches` → `['spec', 'rules', 0, 'matches']`. */
function pathOf(dotted: string): Path {
  if (dotted === '') return [];
  return dotted
    .split(/\.|(?=\[)/)
    .map((part) => (part.startsWith('[') ? Number(part.slice(1, -1)) : part));
}

/** Does a stored Linkerd CRD cover this apiVersion and kind? */
export function hasLinkerdSchema(apiVersion: string, kind: string): boolean {
  return linkerdValidators().kinds.has(`${apiVersion} ${kind}`);
}

/**
 * Adds the object's schema problems to `ctx`. `readerFound` is how many problems the kind's
 * reader reported. `status` at the root is written by controllers, not by users: not checked.
 */
export function checkLinkerdSchema(
  ctx: ReadContext,
  apiVersion: string,
  kind: string,
  readerFound: number,
): void {
  const validator = linkerdValidators().kinds.get(`${apiVersion} ${kind}`);
  if (validator === undefined || typeof ctx.doc.value !== 'object' || ctx.doc.value === null)
    return;
  // The API server owns the root's apiVersion, kind and metadata (readMeta checks metadata);
  // Linkerd's CRDs declare only spec.
  const {
    status: _s,
    apiVersion: _a,
    kind: _k,
    metadata: _m,
    ...value
  } = ctx.doc.value as Record<string, unknown>;
  const schema = `${validator.source.project} ${validator.source.release}`;
  for (const problem of checkSchema(validator, value, ctx.object, '')) {
    if (problem.message.startsWith('unknown field ')) {
      ctx.fail(
        'POLICY_UNKNOWN_FIELD',
        pathOf(problem.path),
        `${problem.path} is not a field of ${kind} ${apiVersion} (${schema} CRD)`,
        'check the spelling and the apiVersion: Linkerd refuses the object',
      );
    } else if (readerFound === 0) {
      ctx.fail(
        'POLICY_SCHEMA_MISMATCH',
        pathOf(problem.path),
        `${problem.path === '' ? 'the object' : problem.path} ${problem.message} (${kind} ${apiVersion}, ${schema} CRD)`,
      );
    }
  }
}

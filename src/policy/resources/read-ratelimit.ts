/**
 * HTTPLocalRateLimitPolicy (policy.linkerd.io/v1alpha1) with Linkerd's admission rules: the
 * target is a Server; every rate is above zero; `identity` and each override are at most
 * `total`; override clients are ServiceAccounts.
 */
import type { ObjectMeta, RateLimitPolicy, ServiceAccountRef } from '../types.js';
import type { Path, ReadContext } from './read-context.js';
import { acceptedCondition, sameName } from './read-status.js';

function readRate(ctx: ReadContext, path: Path): number | undefined {
  const value = ctx.get([...path, 'requestsPerSecond']);
  if (value === undefined || value === null) {
    if (ctx.get(path) !== undefined)
      ctx.fail(
        'POLICY_MISSING_FIELD',
        [...path, 'requestsPerSecond'],
        'requestsPerSecond is required',
      );
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 4294967295)
    return ctx.fail(
      'POLICY_INVALID_RATE_LIMIT',
      [...path, 'requestsPerSecond'],
      'requestsPerSecond must be a whole number',
    );
  if (value === 0)
    return ctx.fail(
      'POLICY_INVALID_RATE_LIMIT',
      [...path, 'requestsPerSecond'],
      `${path.join('.').replace(/^spec\./, '')}.requestsPerSecond must be greater than 0`,
    );
  return value;
}

export function readRateLimitPolicy(
  ctx: ReadContext,
  meta: ObjectMeta,
): RateLimitPolicy | undefined {
  ctx.record(['spec', 'targetRef'], { required: true });
  const kind = ctx.string(['spec', 'targetRef', 'kind'], { required: true });
  const group = ctx.string(['spec', 'targetRef', 'group']) ?? 'policy.linkerd.io';
  const server = ctx.string(['spec', 'targetRef', 'name'], { required: true, nonEmpty: true });
  if (kind !== undefined && (!sameName(kind, 'Server') || !sameName(group, 'policy.linkerd.io')))
    ctx.fail(
      'POLICY_UNSUPPORTED_REF',
      ['spec', 'targetRef', 'kind'],
      `invalid targetRef kind: ${group}/${kind}; an HTTPLocalRateLimitPolicy targets a Server`,
    );
  const total = readRate(ctx, ['spec', 'total']);
  const identity = readRate(ctx, ['spec', 'identity']);
  if (total !== undefined && identity !== undefined && identity > total)
    ctx.fail(
      'POLICY_INVALID_RATE_LIMIT',
      ['spec', 'identity', 'requestsPerSecond'],
      'identity.requestsPerSecond must be less than or equal to total.requestsPerSecond',
    );
  const overrides: RateLimitPolicy['overrides'][number][] = [];
  (ctx.list(['spec', 'overrides']) ?? []).forEach((_, i) => {
    const base = ['spec', 'overrides', i];
    const rate = readRate(ctx, base);
    if (rate !== undefined && total !== undefined && rate > total)
      ctx.fail(
        'POLICY_INVALID_RATE_LIMIT',
        [...base, 'requestsPerSecond'],
        'override.requestsPerSecond must be less than or equal to total.requestsPerSecond',
      );
    const clients: ServiceAccountRef[] = [];
    (ctx.list([...base, 'clientRefs'], { required: true }) ?? []).forEach((__, c) => {
      const ref = [...base, 'clientRefs', c];
      const refKind = ctx.string([...ref, 'kind'], { required: true });
      const refGroup = ctx.string([...ref, 'group']) ?? '';
      const name = ctx.string([...ref, 'name'], { required: true, nonEmpty: true });
      if (
        refKind !== undefined &&
        (!sameName(refKind, 'ServiceAccount') || !['', 'core'].includes(refGroup.toLowerCase()))
      ) {
        ctx.fail(
          'POLICY_UNSUPPORTED_REF',
          [...ref, 'kind'],
          'overrides.clientRefs must target a ServiceAccount',
        );
        return;
      }
      const namespace = ctx.string([...ref, 'namespace']) ?? meta.namespace;
      if (name !== undefined) clients.push({ name, namespace });
    });
    if (rate !== undefined) overrides.push({ requestsPerSecond: rate, clients });
  });
  const accepted = acceptedCondition(ctx, ['status', 'conditions']);
  if (server === undefined || ctx.problems.length > 0) return undefined;
  return {
    meta,
    server,
    ...(total === undefined ? {} : { total }),
    ...(identity === undefined ? {} : { identity }),
    overrides,
    ...(accepted === undefined ? {} : { accepted }),
  };
}

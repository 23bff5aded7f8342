/**
 * The reader of TelemetryPolicy (`policy.labelwise.dev/v1alpha1`): the per-route metrics the
 * roadmap lists among inbound policies, as an object that targets routes the way TimeoutPolicy
 * does instead of living inside a ServiceProfile route.
 */
import { validateLabels } from '../../selector/index.js';
import { TELEMETRY_METRICS } from '../types.js';
import type { ObjectMeta, TelemetryMetric, TelemetryPolicy } from '../types.js';
import type { ReadContext } from './read-context.js';
import { PARAM_PREFIX, readTarget } from './read-extension.js';

export function readTelemetryPolicy(
  ctx: ReadContext,
  meta: ObjectMeta,
): TelemetryPolicy | undefined {
  ctx.onlyFields(['spec'], ['targetRef', 'metrics', 'routeLabels'], 'a TelemetryPolicy spec');
  const target = readTarget(ctx);
  if (!ctx.has(['spec', 'metrics']))
    ctx.fail('POLICY_MISSING_FIELD', ['spec'], 'spec.metrics is required');
  const metrics: TelemetryMetric[] = [];
  (ctx.strings(['spec', 'metrics']) ?? []).forEach((metric, i) => {
    if ((TELEMETRY_METRICS as readonly string[]).includes(metric)) {
      if (!metrics.includes(metric as TelemetryMetric)) metrics.push(metric as TelemetryMetric);
    } else
      ctx.fail(
        'POLICY_INVALID_FIELD',
        ['spec', 'metrics', i],
        `unknown metric ${JSON.stringify(metric)}, expected one of ${TELEMETRY_METRICS.join(', ')}`,
      );
  });
  const routeLabels = readRouteLabelKeys(ctx);
  if (target === undefined || ctx.problems.length > 0) return undefined;
  return { meta, target, metrics, routeLabels };
}

/** Label keys to copy onto the series; a path parameter would give one series per value. */
function readRouteLabelKeys(ctx: ReadContext): string[] {
  const keys: string[] = [];
  (ctx.strings(['spec', 'routeLabels']) ?? []).forEach((key, i) => {
    const probe: Record<string, string> = { [key]: 'x' };
    const error = validateLabels(probe, 'kubernetes')[0];
    if (error !== undefined) {
      ctx.fail('POLICY_INVALID_LABEL', ['spec', 'routeLabels', i], error.message);
      return;
    }
    if (key.startsWith(PARAM_PREFIX)) {
      ctx.fail(
        'POLICY_INVALID_FIELD',
        ['spec', 'routeLabels', i],
        `${key} is a path parameter: its request value is unbounded, so it cannot label a series`,
        'label series by route (every series carries its route) or by a declared route label',
      );
      return;
    }
    if (!keys.includes(key)) keys.push(key);
  });
  return keys;
}

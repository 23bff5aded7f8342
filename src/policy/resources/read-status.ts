/**
 * What Linkerd's status controller wrote on an object (`status.parents[].conditions`,
 * `status.conditions`): where a manifest carries it, it decides acceptance as in the cluster.
 * Status is never an admission error: a malformed status is read as absent.
 */
import type { OutboundParentStatus } from '../outbound/types.js';
import type { RouteParentStatus } from '../types.js';
import type { Path, ReadContext } from './read-context.js';
import { isRecord } from './read-context.js';

/** Kubernetes kinds and groups compare case-insensitively in Linkerd's references. */
export function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** The `Accepted` condition of a condition list: true, false, or undefined when absent. */
export function acceptedCondition(ctx: ReadContext, path: Path): boolean | undefined {
  const list = ctx.get(path);
  if (!Array.isArray(list)) return undefined;
  for (const condition of list) {
    if (isRecord(condition) && condition['type'] === 'Accepted')
      return condition['status'] === 'True' || condition['status'] === true;
  }
  return undefined;
}

/** Server entries of a route's `status.parents`; undefined when the route carries none. */
export function readParentStatuses(ctx: ReadContext): RouteParentStatus[] | undefined {
  const parents = ctx.get(['status', 'parents']);
  if (!Array.isArray(parents)) return undefined;
  const out: RouteParentStatus[] = [];
  parents.forEach((entry, i) => {
    if (!isRecord(entry) || !isRecord(entry['parentRef'])) return;
    const ref = entry['parentRef'];
    const kind = typeof ref['kind'] === 'string' ? ref['kind'] : '';
    const name = typeof ref['name'] === 'string' ? ref['name'] : '';
    if (!sameName(kind, 'Server') || name === '') return;
    const accepted = acceptedCondition(ctx, ['status', 'parents', i, 'conditions']);
    const conditions = Array.isArray(entry['conditions']) ? entry['conditions'] : [];
    const reason = conditions
      .filter(isRecord)
      .find((c) => c['type'] === 'Accepted' && typeof c['reason'] === 'string')?.['reason'];
    out.push({
      name,
      accepted: accepted === true,
      ...(typeof reason === 'string' ? { reason } : {}),
    });
  });
  return out;
}

/**
 * Every entry of a route's `status.parents` as the outbound index compares it (kind, group,
 * name, port, Accepted); undefined when the route carries no `status.parents`.
 */
export function readOutboundParentStatuses(ctx: ReadContext): OutboundParentStatus[] | undefined {
  const parents = ctx.get(['status', 'parents']);
  if (!Array.isArray(parents)) return undefined;
  const out: OutboundParentStatus[] = [];
  parents.forEach((entry, i) => {
    if (!isRecord(entry) || !isRecord(entry['parentRef'])) return;
    const ref = entry['parentRef'];
    const text = (value: unknown): string | undefined =>
      typeof value === 'string' ? value : undefined;
    const port = ref['port'];
    out.push({
      ...(text(ref['kind']) === undefined ? {} : { kind: text(ref['kind']) as string }),
      // Linkerd reads an absent or empty group as `core`.
      group: text(ref['group']) || 'core',
      name: text(ref['name']) ?? '',
      ...(typeof port === 'number' ? { port } : {}),
      accepted: acceptedCondition(ctx, ['status', 'parents', i, 'conditions']) === true,
    });
  });
  return out;
}

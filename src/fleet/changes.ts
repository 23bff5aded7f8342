/**
 * What changes for each host between two loaded fleets, field by field, with the layer that
 * caused each change: the data behind `fleet affected` and `labelwise diff`. Pure.
 *
 * Hosts are first compared by digest; only hosts whose digest moved are resolved again with
 * provenance and diffed. A field that a layer sets in the new fleet is caused by that layer; a
 * field no longer set is caused by the layer that used to set it. A File whose `source` or
 * `template` path is unchanged but whose file content changed is reported as a `content` change.
 */
import { compareText } from '../base/index.js';
import type { DesiredMap, DesiredValue, Fleet, ResolvedResource } from './model.js';
import { leafText } from './resolve/merge-rules.js';
import { prepareFleet } from './resolve/prepare.js';
import type { PreparedFleet } from './resolve/prepare.js';
import { resolveHost } from './resolve/resolve-host.js';

/** One field of one resource that differs. */
export interface FieldChange {
  /** Dotted path inside `desired` (`mode`, `options.x`), or `requires`/`restartOn`/`reloadOn`. */
  readonly field: string;
  /** `set`: newly set; `unset`: no longer set; `changed`: new value; `content`: the named file's bytes. */
  readonly kind: 'set' | 'unset' | 'changed' | 'content';
  readonly from?: DesiredValue;
  readonly to?: DesiredValue;
  /** The layer that caused it (see the module comment); undefined when no layer can be named. */
  readonly layer?: string;
}

/** One resource of a host that differs. */
export interface ResourceChange {
  readonly ref: string;
  readonly status: 'added' | 'removed' | 'changed';
  /** Contributing layers: of the new manifest, or of the old one for a removed resource. */
  readonly layers: readonly string[];
  /** Field changes (`changed` resources only), in field order. */
  readonly fields: readonly FieldChange[];
}

/** What happens to one host. */
export interface HostChanges {
  readonly host: string;
  readonly status: 'added' | 'removed' | 'changed' | 'unchanged';
  /** Digests before and after (absent for an added or removed host). */
  readonly from?: string;
  readonly to?: string;
  /** Layers that now apply and no longer apply. */
  readonly layersAdded: readonly string[];
  readonly layersRemoved: readonly string[];
  /** Resource changes in reference order (empty unless `changed`). */
  readonly resources: readonly ResourceChange[];
}

export interface FleetChangesOptions {
  /** Only these hosts (default: every host of either fleet). */
  readonly hosts?: readonly string[];
}

/** Every leaf of a desired map, by dotted path. */
function flatten(value: DesiredMap, prefix = '', out = new Map<string, DesiredValue>()) {
  for (const key of Object.keys(value)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const child = value[key] as DesiredValue;
    if (typeof child === 'object' && child !== null && !Array.isArray(child))
      flatten(child as DesiredMap, path, out);
    else out.set(path, child);
  }
  return out;
}

function same(a: DesiredValue, b: DesiredValue): boolean {
  return leafText(a as never) === leafText(b as never);
}

function diffResource(
  before: ResolvedResource,
  after: ResolvedResource,
  contents: { before?: ReadonlyMap<string, string>; after?: ReadonlyMap<string, string> },
): FieldChange[] {
  const old = flatten(before.desired);
  const now = flatten(after.desired);
  const names = [...new Set([...old.keys(), ...now.keys()])].sort(compareText);
  const out: FieldChange[] = [];
  for (const field of names) {
    const from = old.get(field);
    const to = now.get(field);
    const layerNow = after.provenance[field]?.layer;
    const layerThen = before.provenance[field]?.layer;
    if (from === undefined && to !== undefined)
      out.push({ field, kind: 'set', to, ...(layerNow === undefined ? {} : { layer: layerNow }) });
    else if (from !== undefined && to === undefined)
      out.push({
        field,
        kind: 'unset',
        from,
        ...(layerThen === undefined ? {} : { layer: layerThen }),
      });
    else if (from !== undefined && to !== undefined && !same(from, to))
      out.push({
        field,
        kind: 'changed',
        from,
        to,
        ...(layerNow === undefined ? {} : { layer: layerNow }),
      });
    else if (
      typeof to === 'string' &&
      (field === 'source' || field === 'template') &&
      after.type === 'File'
    ) {
      const a = contents.before?.get(to);
      const b = contents.after?.get(to);
      if (a !== b)
        out.push({
          field,
          kind: 'content',
          ...(a === undefined ? {} : { from: a }),
          ...(b === undefined ? {} : { to: b }),
          ...(layerNow === undefined ? {} : { layer: layerNow }),
        });
    }
  }
  for (const kind of ['requires', 'restartOn', 'reloadOn'] as const) {
    const from = [...before[kind]].sort(compareText);
    const to = [...after[kind]].sort(compareText);
    if (from.join('\u0000') === to.join('\u0000')) continue;
    const added = to.find((ref) => !from.includes(ref));
    const layer = added === undefined ? undefined : after.edgeLayers[`${kind}:${added}`];
    out.push({ field: kind, kind: 'changed', from, to, ...(layer === undefined ? {} : { layer }) });
  }
  return out;
}

function hostDiff(
  host: string,
  before: PreparedFleet,
  after: PreparedFleet,
  digests: { from: string; to: string },
): HostChanges {
  const old = resolveHost(before, host, { provenance: true });
  const now = resolveHost(after, host, { provenance: true });
  const oldLayers = old.layers.map((l) => l.name);
  const newLayers = now.layers.map((l) => l.name);
  const oldByRef = new Map(old.resources.map((r) => [r.ref, r]));
  const newByRef = new Map(now.resources.map((r) => [r.ref, r]));
  const refs = [...new Set([...oldByRef.keys(), ...newByRef.keys()])].sort(compareText);
  const resources: ResourceChange[] = [];
  const contents = { before: before.fleet.contents, after: after.fleet.contents };
  for (const ref of refs) {
    const a = oldByRef.get(ref);
    const b = newByRef.get(ref);
    if (a === undefined && b !== undefined)
      resources.push({ ref, status: 'added', layers: b.layers, fields: [] });
    else if (a !== undefined && b === undefined)
      resources.push({ ref, status: 'removed', layers: a.layers, fields: [] });
    else if (a !== undefined && b !== undefined) {
      const fields = diffResource(a, b, contents);
      if (fields.length > 0) resources.push({ ref, status: 'changed', layers: b.layers, fields });
    }
  }
  return {
    host,
    status: 'changed',
    ...digests,
    layersAdded: newLayers.filter((l) => !oldLayers.includes(l)),
    layersRemoved: oldLayers.filter((l) => !newLayers.includes(l)),
    resources,
  };
}

/**
 * Per host, what changes from `before` to `after`, field by field with the layer that caused
 * each change. Hosts in name order. Deterministic; never throws for fleets that loaded.
 */
export function fleetChanges(
  before: Fleet,
  after: Fleet,
  options: FleetChangesOptions = {},
): HostChanges[] {
  const prepBefore = prepareFleet(before);
  const prepAfter = prepareFleet(after);
  const oldHosts = new Set(before.hosts.map((h) => h.name));
  const newHosts = new Set(after.hosts.map((h) => h.name));
  const names = (options.hosts ?? [...new Set([...oldHosts, ...newHosts])])
    .slice()
    .sort(compareText);
  const out: HostChanges[] = [];
  const none = { layersAdded: [], layersRemoved: [], resources: [] };
  for (const host of names) {
    const had = oldHosts.has(host);
    const has = newHosts.has(host);
    if (!had && !has) continue;
    if (!had) {
      const m = resolveHost(prepAfter, host);
      out.push({
        host,
        status: 'added',
        to: m.digest,
        ...none,
        layersAdded: m.layers.map((l) => l.name),
      });
      continue;
    }
    if (!has) {
      const m = resolveHost(prepBefore, host);
      out.push({
        host,
        status: 'removed',
        from: m.digest,
        ...none,
        layersRemoved: m.layers.map((l) => l.name),
      });
      continue;
    }
    const from = resolveHost(prepBefore, host).digest;
    const to = resolveHost(prepAfter, host).digest;
    if (from === to) out.push({ host, status: 'unchanged', from, to, ...none });
    else out.push(hostDiff(host, prepBefore, prepAfter, { from, to }));
  }
  return out;
}

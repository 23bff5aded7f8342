/**
 * Fleet: hosts added, removed and changed between two builds, with every field that changed in
 * every resource and the layers that set it. Read from the resolved manifests the fleet stage
 * writes (`fleet/<host>.json`), so it sees exactly what an agent would apply.
 */
import { compareText } from '../../base/index.js';
import { fleetChanges } from '../../fleet/index.js';
import type { FleetStageData } from '../../fleet/index.js';
import type { FieldChange, HostChange } from './model.js';

interface ManifestResource {
  readonly ref: string;
  readonly layers?: readonly string[];
  readonly desired?: Readonly<Record<string, unknown>>;
  readonly [field: string]: unknown;
}

interface HostManifest {
  readonly host: string;
  readonly layers?: readonly { readonly name: string }[];
  readonly resources?: readonly ManifestResource[];
}

const HOST_FILE = /^fleet\/[^/]+\.json$/;

/** The host manifests among a build's outputs, by host name. */
function manifests(files: Readonly<Record<string, string>>): Map<string, HostManifest> {
  const out = new Map<string, HostManifest>();
  for (const [path, text] of Object.entries(files)) {
    if (!HOST_FILE.test(path)) continue;
    try {
      const parsed = JSON.parse(text) as HostManifest;
      if (typeof parsed.host === 'string') out.set(parsed.host, parsed);
    } catch {
      // Not a host manifest: the fleet stage writes other JSON beside them.
    }
  }
  return out;
}

const text = (value: unknown): string | undefined =>
  value === undefined ? undefined : JSON.stringify(value);

/** Every top-level and `desired.` field whose value differs between two versions of a resource. */
function fieldChanges(
  before: ManifestResource | undefined,
  after: ManifestResource | undefined,
): FieldChange[] {
  const ref = (after ?? before)?.ref ?? '?';
  const layers = [...((after ?? before)?.layers ?? [])];
  const changes: FieldChange[] = [];
  const compare = (field: string, a: unknown, b: unknown): void => {
    const x = text(a);
    const y = text(b);
    if (x !== y) changes.push({ resource: ref, field, before: x, after: y, layers });
  };
  const desiredKeys = new Set([
    ...Object.keys(before?.desired ?? {}),
    ...Object.keys(after?.desired ?? {}),
  ]);
  for (const key of [...desiredKeys].sort(compareText))
    compare(key, before?.desired?.[key], after?.desired?.[key]);
  const otherKeys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const key of [...otherKeys].sort(compareText)) {
    if (key === 'ref' || key === 'desired' || key === 'layers') continue;
    compare(key, before?.[key], after?.[key]);
  }
  return changes;
}

function resourcesByRef(manifest: HostManifest | undefined): Map<string, ManifestResource> {
  return new Map((manifest?.resources ?? []).map((r) => [r.ref, r]));
}

function layerNames(manifest: HostManifest | undefined): Set<string> {
  return new Set((manifest?.layers ?? []).map((l) => l.name));
}

export function diffFleet(
  from: Readonly<Record<string, string>>,
  to: Readonly<Record<string, string>>,
): HostChange[] {
  const before = manifests(from);
  const after = manifests(to);
  const hosts = [...new Set([...before.keys(), ...after.keys()])].sort(compareText);
  const changes: HostChange[] = [];
  for (const host of hosts) {
    const a = before.get(host);
    const b = after.get(host);
    const resourcesA = resourcesByRef(a);
    const resourcesB = resourcesByRef(b);
    const refs = [...new Set([...resourcesA.keys(), ...resourcesB.keys()])].sort(compareText);
    const fields = refs.flatMap((ref) => {
      const x = resourcesA.get(ref);
      const y = resourcesB.get(ref);
      if (x === undefined || y === undefined)
        return [
          {
            resource: ref,
            field: '(resource)',
            before: x && 'present',
            after: y && 'present',
            layers: [...((y ?? x)?.layers ?? [])],
          },
        ];
      return fieldChanges(x, y);
    });
    const layersA = layerNames(a);
    const layersB = layerNames(b);
    const layersAdded = [...layersB].filter((l) => !layersA.has(l)).sort(compareText);
    const layersRemoved = [...layersA].filter((l) => !layersB.has(l)).sort(compareText);
    const change = a === undefined ? 'added' : b === undefined ? 'removed' : 'changed';
    if (
      change === 'changed' &&
      fields.length === 0 &&
      layersAdded.length === 0 &&
      layersRemoved.length === 0
    )
      continue;
    changes.push({
      host,
      change,
      layersAdded,
      layersRemoved,
      fields: change === 'changed' ? fields : [],
    });
  }
  return changes;
}

/**
 * The same, from the two loaded fleets when both builds have one: each field then names the
 * layer that caused its change (fleetChanges), not only the layers that set the resource.
 */
export function diffFleetData(from: unknown, to: unknown): HostChange[] | undefined {
  const before = (from as Partial<FleetStageData> | undefined)?.fleet;
  const after = (to as Partial<FleetStageData> | undefined)?.fleet;
  if (before === undefined || after === undefined) return undefined;
  const changes: HostChange[] = [];
  for (const host of fleetChanges(before, after)) {
    if (host.status === 'unchanged') continue;
    const fields: FieldChange[] = host.resources.flatMap((r) =>
      r.status !== 'changed'
        ? [
            {
              resource: r.ref,
              field: '(resource)',
              before: r.status === 'removed' ? 'present' : undefined,
              after: r.status === 'added' ? 'present' : undefined,
              layers: [...r.layers],
            },
          ]
        : r.fields.map((f) => ({
            resource: r.ref,
            field: f.field,
            before: text(f.from),
            after: text(f.to),
            layers: f.layer === undefined ? [...r.layers] : [f.layer],
          })),
    );
    changes.push({
      host: host.host,
      change: host.status,
      layersAdded: [...host.layersAdded],
      layersRemoved: [...host.layersRemoved],
      fields: host.status === 'changed' ? fields : [],
    });
  }
  return changes;
}

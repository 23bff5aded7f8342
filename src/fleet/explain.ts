/**
 * "Why does this resource reach this host, and why has each field its value?" — and, going
 * beyond Datum, "why does it not?": for every layer declaring the resource, the matcher term that
 * failed for the host.
 */
import { LabelwiseError } from '../base/errors.js';
import { explain } from '../selector/index.js';
import type { Labels } from '../selector/index.js';
import type {
  DesiredValue,
  EdgeKind,
  FleetProblem,
  HostDoc,
  HostManifest,
  LayerDoc,
  Substitution,
} from './model.js';
import { EDGE_KINDS } from './model.js';
import { parseRef } from './documents/text-rules.js';
import { formatReason } from './resolve/reasons.js';
import { hostLabels } from './resolve/prepare.js';
import type { PreparedFleet } from './resolve/prepare.js';
import { resolveHost } from './resolve/resolve-host.js';

export interface FieldExplanation {
  readonly field: string;
  readonly value: DesiredValue;
  readonly layer: string;
  /** What it overrode, newest first. */
  readonly overrides: readonly { readonly layer: string; readonly value: DesiredValue }[];
}

export interface FailedLayer {
  readonly layer: string;
  readonly precedence: number;
  /** The terms that failed, in Datum's words, with what the host has. */
  readonly failed: readonly {
    readonly term: string;
    readonly actual: string | null;
    readonly text: string;
  }[];
}

export type ResourceExplanation =
  | {
      readonly applies: true;
      readonly host: string;
      readonly ref: string;
      readonly target: string | undefined;
      readonly layers: readonly {
        readonly name: string;
        readonly precedence: number;
        readonly reasons: readonly string[];
      }[];
      readonly fields: readonly FieldExplanation[];
      readonly edges: readonly {
        readonly kind: EdgeKind;
        readonly ref: string;
        readonly layer: string;
      }[];
      readonly substitutions: readonly Substitution[];
      /** Layers that declare the resource but do not apply to this host, with the failed terms. */
      readonly notApplied: readonly FailedLayer[];
      /** Resolution problems about this resource on this host. */
      readonly problems: readonly FleetProblem[];
    }
  | {
      readonly applies: false;
      readonly host: string;
      readonly ref: string;
      readonly declaredBy: readonly FailedLayer[];
    };

/**
 * Explains one resource on one host. Throws `FLEET_UNKNOWN_HOST` for an unknown host and
 * `FLEET_UNKNOWN_RESOURCE` when no layer declares the reference at all.
 */
export function explainResource(
  prepared: PreparedFleet,
  hostName: string,
  ref: string,
  manifest?: HostManifest,
): ResourceExplanation {
  const resolved = manifest ?? resolveHost(prepared, hostName, { provenance: true });
  const resource = resolved.resources.find((r) => r.ref === ref);
  if (resource !== undefined) {
    const contributing = new Set(resource.layers);
    return {
      applies: true,
      host: resolved.host,
      ref,
      target: resource.target,
      layers: resolved.layers.filter((l) => contributing.has(l.name)),
      fields: Object.keys(resource.provenance).map((field) => {
        const p = resource.provenance[field] as (typeof resource.provenance)[string];
        return { field, value: p.value, layer: p.layer, overrides: p.displaced };
      }),
      edges: EDGE_KINDS.flatMap((kind) =>
        resource[kind].map((target) => ({
          kind,
          ref: target,
          layer: resource.edgeLayers[`${kind}:${target}`] ?? '',
        })),
      ),
      substitutions: resource.substitutions,
      notApplied: declaringLayers(prepared, ref)
        .filter((layer) => !contributing.has(layer.name))
        .map((layer) => failedLayer(layer, labelsOf(prepared, resolved.host))),
      problems: resolved.problems.filter((p) => p.object === ref),
    };
  }
  const declaring = declaringLayers(prepared, ref);
  if (declaring.length === 0) {
    // A document with errors is left out of the fleet; saying "no layer declares it" would send
    // the user looking for a typo in a reference that is spelt right.
    if (prepared.fleet.invalidRefs.has(ref))
      throw new LabelwiseError(
        'FLEET_INVALID_RESOURCE',
        `${ref} is declared only by documents with errors, so it cannot be explained`,
        { hint: 'run `labelwise fleet validate` to see them' },
      );
    if (parseRef(ref) === undefined)
      throw new LabelwiseError(
        'FLEET_UNKNOWN_RESOURCE',
        `${JSON.stringify(ref)} is not a resource reference, so no layer declares it`,
        { hint: 'references look like File[nginx-config]: the type, then the name in brackets' },
      );
    throw new LabelwiseError('FLEET_UNKNOWN_RESOURCE', `no layer declares ${ref}`, {
      hint: `\`labelwise fleet resolve REPO --host ${resolved.host}\` lists the host's resources`,
    });
  }
  const labels = labelsOf(prepared, resolved.host);
  return {
    applies: false,
    host: resolved.host,
    ref,
    declaredBy: declaring.map((layer) => failedLayer(layer, labels)),
  };
}

function declaringLayers(prepared: PreparedFleet, ref: string): LayerDoc[] {
  return prepared.fleet.layers.filter((layer) => layer.resources.some((r) => r.ref === ref));
}

function labelsOf(prepared: PreparedFleet, host: string): Labels {
  return hostLabels(prepared.hosts.get(host) as HostDoc);
}

/** The matcher terms of `layer` that fail for a host's labels, in Datum's words. */
function failedLayer(layer: LayerDoc, labels: Labels): FailedLayer {
  if (layer.invalid === true)
    return {
      layer: layer.name,
      precedence: layer.precedence,
      failed: [{ term: 'invalid', actual: null, text: 'the Layer document has errors' }],
    };
  if (layer.selector.kind === 'nothing')
    return {
      layer: layer.name,
      precedence: layer.precedence,
      failed: [{ term: 'no host', actual: null, text: 'the matcher can never match' }],
    };
  const failed = explain(layer.selector, labels)
    .terms.filter((t) => !t.ok)
    .map((t) => {
      const term = formatReason(t.source);
      const has =
        t.actual === null ? `host has no ${t.source.key}` : `host has ${t.source.key}=${t.actual}`;
      return { term, actual: t.actual, text: `${term} failed, ${has}` };
    });
  return { layer: layer.name, precedence: layer.precedence, failed };
}

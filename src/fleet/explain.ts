/**
 * "Why does this resource reach this host, and why has each field its value?" — and, going
 * beyond Datum, "why does it not?": for every layer declaring the resource, the matcher term that
 * failed for the host.
 */
import { LabelwiseError } from '../errors.js';
import { explain } from '../selector/index.js';
import type { DesiredValue, EdgeKind, HostManifest, Substitution } from './model.js';
import { EDGE_KINDS } from './model.js';
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
    };
  }
  const declaring = prepared.fleet.layers.filter((layer) =>
    layer.resources.some((r) => r.ref === ref),
  );
  if (declaring.length === 0) {
    throw new LabelwiseError(
      'FLEET_UNKNOWN_RESOURCE',
      `no layer declares ${ref}`,
      {},
      'references look like File[nginx-config]: the type, then the name in brackets',
    );
  }
  const labels = hostLabels(
    prepared.hosts.get(resolved.host) as NonNullable<ReturnType<typeof prepared.hosts.get>>,
  );
  return {
    applies: false,
    host: resolved.host,
    ref,
    declaredBy: declaring.map((layer) => {
      const result = explain(layer.selector, labels);
      const failed =
        layer.selector.kind === 'nothing'
          ? [{ term: 'no host', actual: null, text: 'the matcher can never match' }]
          : result.terms
              .filter((t) => !t.ok)
              .map((t) => {
                const term = formatReason(t.source);
                const has =
                  t.actual === null
                    ? `host has no ${t.source.key}`
                    : `host has ${t.source.key}=${t.actual}`;
                return { term, actual: t.actual, text: `${term} failed, ${has}` };
              });
      return { layer: layer.name, precedence: layer.precedence, failed };
    }),
  };
}

/**
 * The data the fleet module works on: documents as loaded from a repository, and manifests as
 * resolved for one host. Plain, immutable-by-convention data; no behaviour lives here.
 */
import type { Diagnostic } from '../base/index.js';
import type { Labels, Selector } from '../selector/index.js';

/** The nine resource types of Datum `v1alpha1` (spec: Documents). */
export const RESOURCE_TYPES = Object.freeze([
  'Package',
  'Repository',
  'File',
  'Directory',
  'Symlink',
  'User',
  'Group',
  'Service',
  'Sysctl',
] as const);
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** Every document type a fleet repository may hold. */
export const DOCUMENT_TYPES = Object.freeze(['Fleet', 'Host', 'Layer', ...RESOURCE_TYPES] as const);
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** Where something was written: a path relative to the fleet root and a 1-based line. */
export interface Location {
  readonly file: string;
  readonly line: number;
}

/**
 * A problem found in a fleet: the shared {@link Diagnostic}, `file`/`line` relative to the fleet
 * root. Host-specific problems carry the host separately, so identical problems on many hosts
 * can be grouped.
 */
export interface FleetProblem extends Diagnostic {
  /** The host whose resolution found it (resolution problems only). */
  readonly host?: string;
}

/** A desired-state leaf: text, integer, boolean, or a list of text. */
export type Leaf = string | number | boolean | readonly string[];

/** A tree of desired state: leaves inside string-keyed maps (prototype-free). */
export type DesiredValue = Leaf | DesiredMap;
export interface DesiredMap {
  readonly [key: string]: DesiredValue;
}

/**
 * One piece of a text value with placeholders: literal text (secrets placeholders included,
 * verbatim), or a substitution.
 */
export type TemplatePart =
  string | { readonly kind: 'host' } | { readonly kind: 'label'; readonly key: string };

/** A text leaf that holds placeholders, split once at load time. */
export interface Template {
  readonly kind: 'template';
  readonly text: string;
  readonly parts: readonly TemplatePart[];
}

/** A desired field as written in one document: a value (maybe a template) and its line. */
export interface DesiredField {
  readonly value: Leaf | Template | readonly (string | Template)[];
  readonly line: number;
}

/** A `Type[name]` reference as written, with its line. */
export interface EdgeRef {
  readonly ref: string;
  readonly line: number;
}

export type EdgeKind = 'requires' | 'restartOn' | 'reloadOn';
export const EDGE_KINDS: readonly EdgeKind[] = Object.freeze(['requires', 'restartOn', 'reloadOn']);

/** A Fleet document. */
export interface FleetDoc extends Location {
  readonly name: string;
  readonly exclude: readonly string[];
}

/** A Host document: declared labels (without `datum/host`). */
export interface HostDoc extends Location {
  readonly name: string;
  readonly labels: Labels;
}

/** A resource document as one layer contributes it. */
export interface ResourceDoc extends Location {
  readonly type: ResourceType;
  readonly name: string;
  /** `Type[name]`. */
  readonly ref: string;
  /** Desired fields in source order. */
  readonly desired: ReadonlyMap<string, DesiredField>;
  readonly edges: Readonly<Record<EdgeKind, readonly EdgeRef[]>>;
  /** Whether any desired text holds a `{{ host }}` or `{{ labels.K }}` placeholder. */
  readonly templated: boolean;
}

/** A Layer document with the resource documents that belong to it. */
export interface LayerDoc extends Location {
  readonly name: string;
  readonly precedence: number;
  /** The matcher; EVERYTHING when the layer has no `match` block. */
  readonly selector: Selector;
  /** The directory the layer governs, relative to the fleet root (`''` for the root). */
  readonly dir: string;
  /** Resource documents, ordered by type then name. */
  readonly resources: readonly ResourceDoc[];
  /** Set when the Layer document had errors: it owns its directory but applies to no host. */
  readonly invalid?: boolean;
  /** Line of each requirement's term, keyed by the requirement's origin path (`match.labels.role`). */
  readonly matchLines: Readonly<Record<string, number>>;
}

/** A loaded fleet repository: every valid document, and every problem found loading it. */
export interface Fleet {
  /** The fleet root relative to the directory that was read (`''` when it is that directory). */
  readonly root: string;
  readonly fleet: FleetDoc | undefined;
  /** Hosts ordered by name. */
  readonly hosts: readonly HostDoc[];
  /** Layers in discovery order: by precedence, then by the Layer file's path. */
  readonly layers: readonly LayerDoc[];
  /** Problems found while loading, in file order. */
  readonly problems: readonly FleetProblem[];
  /**
   * References whose documents had errors (and were left out). Edges to them are not reported
   * again as unresolved: the document's own error says what to fix.
   */
  readonly invalidRefs: ReadonlySet<string>;
  /** Hosts whose documents had errors (and were left out), with where they were declared. */
  readonly invalidHosts: ReadonlyMap<string, Location>;
  /** Every file under the root (relative paths), when the reader listed them. */
  readonly files?: ReadonlySet<string>;
  /** sha256 of each non-YAML file the loader was given (relative paths), for the digest. */
  readonly contents?: ReadonlyMap<string, string>;
}

/** Where one leaf's value came from: the layer that set it and the values it displaced. */
export interface Provenance {
  readonly layer: string;
  readonly value: DesiredValue;
  /** Values set earlier and overridden, newest first. */
  readonly displaced: readonly { readonly layer: string; readonly value: DesiredValue }[];
}

/** A substitution made while resolving (secrets are never recorded). */
export interface Substitution {
  readonly field: string;
  readonly placeholder: string;
  readonly value: string;
  readonly layer: string;
}

/** One resource of a host's manifest. */
export interface ResolvedResource {
  readonly ref: string;
  readonly type: ResourceType;
  readonly name: string;
  /** The target identity (`desired.path`, `desired.id` or the name); undefined when missing. */
  readonly target: string | undefined;
  /** Contributing layers, in fold order. */
  readonly layers: readonly string[];
  readonly desired: DesiredMap;
  /** Per leaf, keyed by dotted field path. */
  readonly provenance: Readonly<Record<string, Provenance>>;
  readonly requires: readonly string[];
  readonly restartOn: readonly string[];
  readonly reloadOn: readonly string[];
  /** Which layer first declared each edge, keyed `kind:ref`. */
  readonly edgeLayers: Readonly<Record<string, string>>;
  readonly substitutions: readonly Substitution[];
}

/** A layer that applies to a host, with the matcher terms that held. */
export interface AppliedLayer {
  readonly name: string;
  readonly precedence: number;
  readonly reasons: readonly string[];
}

/** The effective manifest of one host. */
export interface HostManifest {
  readonly host: string;
  /** Declared labels plus `datum/host`. */
  readonly labels: Labels;
  readonly layers: readonly AppliedLayer[];
  /** Resources in dependency order (topological, ties by reference string). */
  readonly resources: readonly ResolvedResource[];
  /** `sha256:<64 hex>`. */
  readonly digest: string;
  /** Resolution problems for this host (conflicts, substitutions, graph). */
  readonly problems: readonly FleetProblem[];
}

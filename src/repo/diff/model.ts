/**
 * What `labelwise diff` reports: per module, what the change between two revisions does to what
 * reaches what. Plain data, deterministic (every list sorted by code point), shared by the
 * text, Markdown, JSON and SARIF renderings.
 */
import type { Diagnostic } from '../../base/index.js';

/** One field of one resource that differs: `File[motd].mode 0644 -> 0600`. */
export interface FieldChange {
  readonly resource: string;
  readonly field: string;
  /** JSON text of the value before and after; undefined when absent on that side. */
  readonly before?: string;
  readonly after?: string;
  /** The layers that set the resource after the change (before, when it was removed). */
  readonly layers: readonly string[];
}

export interface HostChange {
  readonly host: string;
  readonly change: 'added' | 'removed' | 'changed';
  /** Layers that now reach the host and no longer do. */
  readonly layersAdded: readonly string[];
  readonly layersRemoved: readonly string[];
  readonly fields: readonly FieldChange[];
}

export interface ManifestChange {
  /** The output path under apps/, e.g. `apps/blog/deployment-blog.yaml`. */
  readonly file: string;
  readonly change: 'added' | 'removed' | 'changed';
  /** A unified diff of the object (changed objects only). */
  readonly patch?: string;
}

/** One allowed flow between services, as the catalog's reachability proof found it. */
export interface FlowChange {
  readonly flow: string;
  readonly change: 'allowed' | 'denied';
}

/**
 * One cell of the policy reachability matrix that flips, or one outbound flow (`causeKind`
 * `outbound`: target is the flow, client `ns:<namespace>`, before and after the flow in one line,
 * `(no flow)` when it appears or goes).
 */
export interface MatrixCellChange {
  readonly target: string;
  readonly client: string;
  readonly before: string;
  readonly after: string;
  /**
   * What decides the flip: the authorization that admits after the change (or admitted before
   * it, when access was lost), the row itself when the change adds or removes the route, or for
   * an outbound flow its route (its parent, for a default route or 404).
   */
  readonly cause: string;
  readonly causeKind: 'authorization' | 'route added' | 'route removed' | 'outbound';
}

/** Flips that one object decides: a 31-row list reads as its three causes. */
export interface PolicyCause {
  readonly cause: string;
  readonly kind: MatrixCellChange['causeKind'];
  readonly cells: number;
  readonly targets: readonly string[];
  readonly clients: readonly string[];
  /** `deny → allow`, … */
  readonly transitions: readonly string[];
}

export interface ClaimChange {
  readonly project: string;
  readonly backend: string;
  readonly change: 'gained' | 'lost' | 'moved';
  readonly before?: string;
  readonly after?: string;
}

export interface ModuleDiff<T> {
  readonly changes: readonly T[];
}

/** What the build of the revision after the change read. */
export interface CheckedParts {
  readonly modules: readonly {
    readonly module: string;
    readonly counts: Readonly<Record<string, number>>;
  }[];
  /** Compose-named files no project reads (`docker-compose.test.yml` beside `compose.yaml`). */
  readonly composeNotRead: readonly {
    readonly file: string;
    readonly project: readonly string[];
  }[];
}

export interface RepoDiff {
  readonly from: { readonly revision: string; readonly commit?: string };
  readonly to: { readonly revision: string; readonly commit?: string };
  readonly fleet: ModuleDiff<HostChange>;
  readonly catalog: ModuleDiff<ManifestChange> & {
    readonly flows: readonly FlowChange[];
    /** Apply-time hazards the change introduces (immutable fields, shrinking claims, …). */
    readonly hazards: readonly Diagnostic[];
  };
  readonly policy: ModuleDiff<MatrixCellChange> & {
    /** Compiled policy files that changed when no matrix is available. */
    readonly compiledChanged: boolean;
    /** The flips grouped by what decides them, the largest group first. */
    readonly causes: readonly PolicyCause[];
  };
  readonly anchor: ModuleDiff<ClaimChange> & { readonly overlapsIntroduced: readonly Diagnostic[] };
  /** Diagnostics present after the change and not before, and the ones it resolved. */
  readonly introduced: readonly Diagnostic[];
  readonly resolved: readonly Diagnostic[];
  /** Errors the change introduces (present after it, not before). */
  readonly errors: number;
  readonly changed: boolean;
  readonly checked: CheckedParts;
}

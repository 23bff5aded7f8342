/**
 * The object model's shared parts: where objects sit, their metadata, and the route match and
 * filter shapes that inbound and outbound routes have in common. Re-exported by `types.ts`.
 */
import type { Labels } from '../selector/index.js';
import type { Pattern } from './pattern.js';

/** Where an object (or one of its fields) sits in the input. `file` is relative to the root. */
export interface Location {
  readonly file: string;
  readonly line: number;
  /** JSON-style path inside the document, e.g. `spec.rules[0].matches[1].path`. */
  readonly path?: string;
}

/** The metadata every loaded object keeps. */
export interface ObjectMeta {
  readonly kind: string;
  readonly apiVersion: string;
  readonly name: string;
  readonly namespace: string;
  readonly labels: Labels;
  readonly annotations: Readonly<Record<string, string>>;
  /**
   * `metadata.creationTimestamp` as written (RFC 3339), or `''` when absent. Absent sorts
   * after every timestamp: an object not yet created is the newest.
   */
  readonly created: string;
  readonly at: Location;
}

export interface NetworkSpec {
  readonly cidr: string;
  readonly except: readonly string[];
}

export type PathMatch =
  | { readonly type: 'Exact' | 'PathPrefix'; readonly value: string }
  | { readonly type: 'RegularExpression'; readonly value: string; readonly regex: Pattern };

export type ValueMatch =
  | { readonly name: string; readonly type: 'Exact'; readonly value: string }
  | {
      readonly name: string;
      readonly type: 'RegularExpression';
      readonly value: string;
      readonly regex: Pattern;
    };

/** One `matches[]` entry. A rule without matches has one implicit match: PathPrefix `/`. */
export interface RouteMatchSpec {
  readonly path: PathMatch;
  /** Header names are lower-cased at load (HTTP header names are case-insensitive). */
  readonly headers: readonly ValueMatch[];
  readonly queryParams: readonly ValueMatch[];
  readonly method?: string;
  /** Set for extension routes: the path template replaces `path`. */
  readonly template?: string;
  /**
   * Set for GRPCRoute matches: the proxy matches `POST /<service>/<method>` segment-wise and
   * scores service length, then method length, then headers (`path` is only descriptive).
   */
  readonly grpc?: { readonly service?: string; readonly method?: string };
}

export type RouteFilter =
  | {
      readonly type: 'RequestHeaderModifier' | 'ResponseHeaderModifier';
      readonly set: Readonly<Record<string, string>>;
      readonly add: Readonly<Record<string, string>>;
      readonly remove: readonly string[];
    }
  | {
      readonly type: 'RequestRedirect';
      readonly scheme?: string;
      readonly hostname?: string;
      readonly path?: string;
      readonly port?: number;
      readonly statusCode: number;
    };

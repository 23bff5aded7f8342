/**
 * Findings marked intended. A user accepts a finding on the object it is about, with an
 * annotation in the style of kube-linter's `ignore-check.kube-linter.io/<check>`:
 *
 *     metadata:
 *       annotations:
 *         ignore-check.labelwise.io/POLICY_AUTHZ_BROADER_THAN_ROUTES: "namespace-wide on purpose"
 *
 * or in `labelwise.yaml`, as a list of `{code, object?, file?, reason}`. An accepted finding is
 * never dropped: it keeps its severity and place, carries `accepted: {reason, by}`, no longer
 * counts towards errors and warnings (so it fails no check), and SARIF lists it with a
 * `suppressions` entry holding the justification. Every module uses this one mechanism.
 */
import type { Acceptance, Diagnostic } from './diagnostic.js';

export type { Acceptance } from './diagnostic.js';

/** The annotation prefix; the rest of the key is the finding's code. */
export const ACCEPT_ANNOTATION_PREFIX = 'ignore-check.labelwise.io/';

/** One `labelwise.yaml` entry: a code, optionally narrowed to an object and a file. */
export interface AcceptRule {
  readonly code: string;
  /** The finding's `object` exactly, e.g. `AuthorizationPolicy booksapp/authors-open`. */
  readonly object?: string;
  /** The finding's file (relative to the repository root), or a folder holding it. */
  readonly file?: string;
  readonly reason: string;
}

/** What is known about acceptances: config rules, and annotations by object. */
export interface AcceptanceSources {
  readonly rules?: readonly AcceptRule[];
  /** `object` (as findings name it) → that object's annotations. */
  readonly annotations?: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

/** The annotations of one object that accept codes: code → reason. */
export function acceptedCodes(
  annotations: Readonly<Record<string, string>>,
): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(annotations))
    if (key.startsWith(ACCEPT_ANNOTATION_PREFIX))
      out.set(key.slice(ACCEPT_ANNOTATION_PREFIX.length), value);
  return out;
}

function inFile(rule: AcceptRule, file: string | undefined): boolean {
  if (rule.file === undefined) return true;
  if (file === undefined) return false;
  const folder = rule.file.endsWith('/') ? rule.file : `${rule.file}/`;
  return file === rule.file || file.startsWith(folder);
}

/** Why `d` is accepted, or undefined. An annotation on the object wins over labelwise.yaml. */
export function acceptanceOf(d: Diagnostic, sources: AcceptanceSources): Acceptance | undefined {
  const annotations = d.object === undefined ? undefined : sources.annotations?.get(d.object);
  const reason = annotations === undefined ? undefined : acceptedCodes(annotations).get(d.code);
  if (reason !== undefined)
    return { reason: reason.trim() || '(no reason given)', by: 'annotation' };
  for (const rule of sources.rules ?? []) {
    if (rule.code !== d.code) continue;
    if (rule.object !== undefined && rule.object !== d.object) continue;
    if (!inFile(rule, d.file)) continue;
    return { reason: rule.reason, by: 'config' };
  }
  return undefined;
}

/**
 * The findings with `accepted` set where an annotation or rule accepts them. Errors about the
 * input's validity (a YAML error, an object the API server refuses) can be accepted too: the
 * user then says the finding is known, and it stays listed.
 */
export function markAccepted(
  findings: readonly Diagnostic[],
  sources: AcceptanceSources,
): Diagnostic[] {
  if ((sources.rules?.length ?? 0) === 0 && (sources.annotations?.size ?? 0) === 0)
    return [...findings];
  return findings.map((d) => {
    if (d.accepted !== undefined) return d;
    const accepted = acceptanceOf(d, sources);
    return accepted === undefined ? d : { ...d, accepted };
  });
}

/**
 * Objects the loader left out, looked up by what refers to them. A route whose parent Server
 * failed admission must not be told "the Server does not exist": the user can see it in their
 * file. It is told the Server is invalid and where its error is (`POLICY_REF_INVALID`), so the
 * one real error is not buried under misleading "missing" findings.
 */
import type { Location, PolicyProblem, RejectedObject } from '../types.js';

/** The code of a finding about an object that refers to a rejected one. */
export const REF_INVALID = 'POLICY_REF_INVALID';

export class Rejections {
  private readonly byKey = new Map<string, RejectedObject>();

  constructor(list: readonly RejectedObject[] = []) {
    // The first rejection of a name wins: its error is the one to look at.
    for (const r of list) {
      const k = `${r.kind} ${r.namespace}/${r.name}`;
      if (!this.byKey.has(k)) this.byKey.set(k, r);
    }
  }

  /** Rejected objects of one kind in one namespace, sorted by name. */
  inNamespace(kind: string, namespace: string): RejectedObject[] {
    return [...this.byKey.values()]
      .filter((r) => r.kind === kind && r.namespace === namespace)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The rejected object of this kind and name, if one was in the input. */
  find(kind: string, namespace: string, name: string): RejectedObject | undefined {
    return this.byKey.get(`${kind} ${namespace}/${name}`);
  }
}

/** `Server ns/web is invalid (see its error at policy.yaml:15)`. */
export function describeRejected(r: RejectedObject): string {
  const where = `${r.at.file}:${r.at.line}`;
  return r.code === 'POLICY_UNSUPPORTED_API_VERSION'
    ? `${r.kind} ${r.namespace}/${r.name} was left out for its apiVersion (see ${where})`
    : `${r.kind} ${r.namespace}/${r.name} is invalid (see its error at ${where})`;
}

/**
 * A `POLICY_REF_INVALID` warning on `object` (written at `at`): `what` names the reference
 * (`parent`, `target`, …) and `consequence` says what follows from it being left out. A warning:
 * the finding to act on is the rejected object's own (an error, or the apiVersion warning).
 */
export function refInvalid(
  object: string,
  at: Pick<Location, 'file' | 'line'>,
  what: string,
  target: RejectedObject,
  consequence: string,
): PolicyProblem {
  return {
    severity: 'warning',
    code: REF_INVALID,
    object,
    file: at.file,
    line: at.line,
    message: `${what} ${describeRejected(target)}, so ${consequence}`,
  };
}

/**
 * The finding for a binding whose Server is not there: `POLICY_REF_INVALID` when the Server was
 * in the input and left out, else `POLICY_ROUTE_PARENT_MISSING`. `bound` names what the binding
 * attaches (`routes`, `services`), none of which apply.
 */
export function missingServerProblem(
  object: string,
  at: Pick<Location, 'file' | 'line'>,
  server: { readonly namespace: string; readonly name: string },
  rejections: Rejections,
  bound: string,
): PolicyProblem {
  const rejected = rejections.find('Server', server.namespace, server.name);
  if (rejected !== undefined)
    return refInvalid(object, at, 'target', rejected, `none of its ${bound} apply`);
  return {
    severity: 'error',
    code: 'POLICY_ROUTE_PARENT_MISSING',
    object,
    file: at.file,
    line: at.line,
    message: `target Server ${server.namespace}/${server.name} does not exist, so none of its ${bound} apply`,
  };
}

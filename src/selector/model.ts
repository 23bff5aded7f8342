import { compareText } from '../base/text.js';
import { LabelwiseError, quote } from '../base/errors.js';
import {
  sortStrings,
  keyProblems,
  valueProblems,
  DATUM_HOST_LABEL,
  DATUM_RESERVED_PREFIX,
} from './labels.js';
import type { ValidationProfile } from './labels.js';

/** The four set-based operators of Kubernetes label selectors (docs/selector.md, "The model"). */
export type Operator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export const OPERATORS: readonly Operator[] = Object.freeze([
  'In',
  'NotIn',
  'Exists',
  'DoesNotExist',
]);

/** Where a requirement came from, so proofs and explanations can point back at the input. */
export interface RequirementOrigin {
  /** Character offset of the term in a selector string. */
  readonly offset?: number;
  /** Path of the term inside a document, e.g. `match.oneOf.site` or `matchExpressions[0]`. */
  readonly path?: string;
  /**
   * How Kubernetes spells the operator of this term (`=`, `==`, `!=`, `in`, `notin`): as written
   * in a selector string, or as apimachinery converts a LabelSelector object (`matchLabels` is
   * `=`). Only the Kubernetes printer reads it; meaning never depends on it.
   */
  readonly spelling?: KubernetesSpelling;
}

/** The operator spellings apimachinery keeps apart when it prints a selector. */
export type KubernetesSpelling = '=' | '==' | '!=' | 'in' | 'notin';

/**
 * One term of a selector. `values` is sorted and free of duplicates; it is non-empty for
 * `In`/`NotIn` and empty for `Exists`/`DoesNotExist`. Build with {@link requirement}.
 */
export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  readonly values: readonly string[];
  readonly origin?: RequirementOrigin;
}

/**
 * A conjunction of requirements. `everything` has none and matches every label set; `nothing`
 * matches none (a `null` LabelSelector). The two are distinct shared constants, compared by
 * identity or by `kind`, so "null matches nothing" can never turn into "empty matches all".
 */
export type Selector =
  | { readonly kind: 'everything'; readonly requirements: readonly [] }
  | { readonly kind: 'nothing'; readonly requirements: readonly [] }
  | { readonly kind: 'requirements'; readonly requirements: readonly Requirement[] };

export const EVERYTHING: Selector = Object.freeze({
  kind: 'everything',
  requirements: Object.freeze([]) as readonly [],
});

export const NOTHING: Selector = Object.freeze({
  kind: 'nothing',
  requirements: Object.freeze([]) as readonly [],
});

/**
 * Builds a requirement, checking operator arity. Values are copied, de-duplicated and sorted; the
 * input array is left untouched. Throws a LabelwiseError (`SELECTOR_INVALID_REQUIREMENT`) when
 * `In`/`NotIn` get no values or `Exists`/`DoesNotExist` get some.
 */
export function requirement(
  key: string,
  operator: Operator,
  values: readonly string[] = [],
  origin?: RequirementOrigin,
): Requirement {
  if (!OPERATORS.includes(operator)) {
    throw new LabelwiseError(
      'SELECTOR_INVALID_OPERATOR',
      `unknown operator ${quote(String(operator))}, expected one of In, NotIn, Exists, DoesNotExist`,
      { source: originSource(origin) },
    );
  }
  if ((operator === 'In' || operator === 'NotIn') && values.length === 0) {
    throw new LabelwiseError(
      'SELECTOR_INVALID_REQUIREMENT',
      `operator ${operator} on key ${quote(key)} needs at least one value`,
      { source: originSource(origin) },
    );
  }
  if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) {
    throw new LabelwiseError(
      'SELECTOR_INVALID_REQUIREMENT',
      `operator ${operator} on key ${quote(key)} takes no values`,
      { source: originSource(origin) },
    );
  }
  const sorted = sortStrings([...new Set(values)]);
  const req: Requirement =
    origin === undefined
      ? { key, operator, values: Object.freeze(sorted) }
      : { key, operator, values: Object.freeze(sorted), origin: Object.freeze({ ...origin }) };
  return Object.freeze(req);
}

/**
 * A selector from requirements, sorted by key (stable for equal keys, like apimachinery's
 * printing). No requirements gives {@link EVERYTHING}.
 */
export function selectorOf(requirements: readonly Requirement[]): Selector {
  if (requirements.length === 0) return EVERYTHING;
  const sorted = [...requirements].sort((a, b) => compareText(a.key, b.key));
  return Object.freeze({ kind: 'requirements', requirements: Object.freeze(sorted) });
}

/** True for {@link EVERYTHING} and for any selector without requirements that is not Nothing. */
export function isEverything(selector: Selector): boolean {
  return selector.kind !== 'nothing' && selector.requirements.length === 0;
}

/**
 * Checks every key and value of a selector against a validation profile (docs/selector.md, "Validation profiles"). Returns every
 * problem with the requirement's origin. Under `datum`, the only reserved key a matcher may use
 * is `datum/host`.
 */
export function validateSelector(selector: Selector, profile: ValidationProfile): LabelwiseError[] {
  const errors: LabelwiseError[] = [];
  for (const req of selector.requirements) {
    for (const problem of requirementProblems(req.key, req.values, profile)) {
      errors.push(
        new LabelwiseError(problem.code, problem.message, { source: problemSource(req, problem) }),
      );
    }
  }
  return errors;
}

/** One problem with a requirement's key or one of its values, see {@link requirementProblems}. */
export interface RequirementProblem {
  readonly code: 'SELECTOR_INVALID_KEY' | 'SELECTOR_RESERVED_LABEL' | 'SELECTOR_INVALID_VALUE';
  readonly message: string;
  /** Index into the checked values, or undefined when the key is at fault. */
  readonly valueIndex?: number;
}

/**
 * The problems of one requirement's key and values under a profile: one per rule broken, key
 * first, then values in the order given. A bad key does not hide bad values (apimachinery's
 * `ValidateLabelSelectorRequirement` reports both). Internal: shared by {@link validateSelector},
 * the LabelSelector reader and the string parser, which points each problem at its own token.
 */
export function requirementProblems(
  key: string,
  values: readonly string[],
  profile: ValidationProfile,
): RequirementProblem[] {
  const problems: RequirementProblem[] = keyProblems(key, profile).map((message) => ({
    code: 'SELECTOR_INVALID_KEY',
    message,
  }));
  if (
    problems.length === 0 &&
    profile === 'datum' &&
    key.startsWith(DATUM_RESERVED_PREFIX) &&
    key !== DATUM_HOST_LABEL
  ) {
    problems.push({
      code: 'SELECTOR_RESERVED_LABEL',
      message: `key ${quote(key)} uses the reserved prefix "datum/"; only ${DATUM_HOST_LABEL} exists`,
    });
  }
  values.forEach((value, valueIndex) => {
    for (const valueError of valueProblems(value, profile)) {
      problems.push({
        code: 'SELECTOR_INVALID_VALUE',
        message: `${valueError} (key ${quote(key)})`,
        valueIndex,
      });
    }
  });
  return problems;
}

/**
 * Where a problem of `req` points: for a LabelSelector expression (`matchExpressions[0]`), its
 * `key` or `values[i]` field, as apimachinery names them; otherwise the requirement's origin.
 */
function problemSource(
  req: Requirement,
  problem: RequirementProblem,
): { offset?: number; path?: string } {
  const source = originSource(req.origin);
  if (source.path !== undefined && /matchExpressions\[\d+\]$/.test(source.path)) {
    source.path += problem.valueIndex === undefined ? '.key' : `.values[${problem.valueIndex}]`;
  }
  return source;
}

/** The SourceRef for errors about a requirement. */
export function originSource(origin: RequirementOrigin | undefined): {
  offset?: number;
  path?: string;
} {
  const out: { offset?: number; path?: string } = {};
  if (origin?.offset !== undefined) out.offset = origin.offset;
  if (origin?.path !== undefined) out.path = origin.path;
  return out;
}

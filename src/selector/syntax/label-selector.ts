/**
 * Kubernetes LabelSelector objects (`matchLabels`, `matchExpressions`), docs/selector.md, "Kubernetes LabelSelector objects".
 *
 * - `null` or absent is Nothing; `{}` is Everything. Keep the two apart: it is the difference
 *   between "selects no pods" and "selects every pod".
 * - Operators are exactly `In`, `NotIn`, `Exists`, `DoesNotExist` (case-sensitive).
 * - `In`/`NotIn` need at least one value (`[""]` is legal); `Exists`/`DoesNotExist` take none.
 * - Requirements remember where they came from (`matchLabels.app`, `matchExpressions[1]`) so an
 *   object survives object → model → object without loss.
 */
// The diagnostic and error modules directly: the base index also loads the file readers, which
// the pure core has no use for.
import { diagnosticFromError } from '../../base/diagnostic.js';
import type { Diagnostic } from '../../base/diagnostic.js';
import { LabelwiseError, quote } from '../../base/errors.js';
import { pushAll } from '../../base/arrays.js';
import type { ValidationProfile } from '../labels.js';
import {
  EVERYTHING,
  NOTHING,
  OPERATORS,
  requirement,
  requirementProblems,
  selectorOf,
  validateSelector,
} from '../model.js';
import type { Operator, Requirement, Selector } from '../model.js';

export interface LabelSelectorRequirementObject {
  key: string;
  operator: Operator;
  values?: string[];
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirementObject[];
}

/** Options for {@link fromLabelSelector}. */
export interface LabelSelectorOptions {
  /** Path of the object in its document, prefixed to error paths. Default: `""`. */
  path?: string;
  /** Key/value rules to enforce, or `none`. Default: `kubernetes`. */
  profile?: ValidationProfile | 'none';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(base: string, part: string): string {
  if (base === '') return part;
  return part.startsWith('[') ? `${base}${part}` : `${base}.${part}`;
}

/** What {@link fromLabelSelector} returns. */
export interface LabelSelectorResult {
  /** Undefined when there were errors. */
  selector: Selector | undefined;
  /** Every problem, in the order apimachinery's `ValidateLabelSelector` reports them. */
  errors: LabelwiseError[];
  /** The same problems as diagnostics (the shared report type), module `selector`. */
  diagnostics: Diagnostic[];
}

function result(selector: Selector | undefined, errors: LabelwiseError[]): LabelSelectorResult {
  return {
    selector: errors.length > 0 ? undefined : selector,
    errors,
    diagnostics: errors.map((e) => diagnosticFromError(e, 'selector')),
  };
}

type Fail = (path: string, message: string) => void;

/**
 * Converts a LabelSelector object into the model, returning every problem found with its JSON
 * path, as apimachinery's `ValidateLabelSelector` does: an expression with a bad key and a bad
 * value gets both errors (`matchExpressions[0].key`, `matchExpressions[0].values[0]`), a bad
 * operator does not hide a bad key (`matchExpressions[0].operator`). `selector` is undefined when
 * there were errors. Never throws.
 */
export function fromLabelSelector(
  object: unknown,
  options: LabelSelectorOptions = {},
): LabelSelectorResult {
  const base = options.path ?? '';
  const profile = options.profile ?? 'kubernetes';
  const errors: LabelwiseError[] = [];
  const fail: Fail = (path, message) => {
    errors.push(
      new LabelwiseError('SELECTOR_INVALID_LABEL_SELECTOR', message, { source: { path } }),
    );
  };
  if (object === null || object === undefined) return result(NOTHING, errors);
  if (!isPlainObject(object)) {
    fail(base, 'a label selector must be a mapping with matchLabels and/or matchExpressions');
    return result(undefined, errors);
  }
  const requirements: Requirement[] = [];
  for (const field of Object.keys(object)) {
    if (field !== 'matchLabels' && field !== 'matchExpressions') {
      fail(join(base, field), `label selector has no field ${quote(field)}`);
    }
  }
  const { matchLabels, matchExpressions } = object;
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isPlainObject(matchLabels)) {
      fail(join(base, 'matchLabels'), 'matchLabels must be a mapping of strings');
    } else {
      for (const [key, value] of Object.entries(matchLabels)) {
        const path = join(join(base, 'matchLabels'), key);
        if (typeof value !== 'string') {
          fail(path, `matchLabels value for ${quote(key)} must be a string`);
          continue;
        }
        // apimachinery turns matchLabels into Equals terms, printed `k=v`.
        const req = requirement(key, 'In', [value], { path, spelling: '=' });
        if (profile !== 'none') pushAll(errors, validateSelector(selectorOf([req]), profile));
        requirements.push(req);
      }
    }
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) {
      fail(join(base, 'matchExpressions'), 'matchExpressions must be a list');
    } else {
      matchExpressions.forEach((expression: unknown, index) => {
        const path = join(join(base, 'matchExpressions'), `[${index}]`);
        const req = readExpression(expression, path, profile, fail, errors);
        if (req !== undefined) requirements.push(req);
      });
    }
  }
  return result(requirements.length === 0 ? EVERYTHING : selectorOf(requirements), errors);
}

/** The operator and arity checks of one expression, in apimachinery's order. */
function checkOperator(
  operator: unknown,
  values: readonly string[] | undefined,
  path: string,
  fail: Fail,
): boolean {
  if (typeof operator !== 'string' || !(OPERATORS as readonly string[]).includes(operator)) {
    fail(
      join(path, 'operator'),
      `unknown operator ${quote(String(operator))}, expected one of In, NotIn, Exists, DoesNotExist`,
    );
    return false;
  }
  // Values of the wrong shape were reported already; their count means nothing.
  if (values === undefined) return true;
  if ((operator === 'In' || operator === 'NotIn') && values.length === 0) {
    fail(join(path, 'values'), `operator ${operator} needs at least one value`);
    return false;
  }
  if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) {
    fail(join(path, 'values'), `operator ${operator} takes no values`);
    return false;
  }
  return true;
}

/** The values of an expression; a wrong shape is reported and read as no values. */
function readValues(values: unknown, path: string, fail: Fail): string[] | undefined {
  if (values === undefined || values === null) return [];
  if (!Array.isArray(values)) {
    fail(join(path, 'values'), 'values must be a list of strings');
    return undefined;
  }
  let ok = true;
  values.forEach((value: unknown, index) => {
    if (typeof value !== 'string') {
      fail(join(path, `values[${index}]`), 'values must be a list of strings');
      ok = false;
    }
  });
  return ok ? (values as string[]) : undefined;
}

function readExpression(
  expression: unknown,
  path: string,
  profile: ValidationProfile | 'none',
  fail: Fail,
  errors: LabelwiseError[],
): Requirement | undefined {
  if (!isPlainObject(expression)) {
    fail(path, 'a match expression must be a mapping with key, operator and values');
    return undefined;
  }
  let ok = true;
  for (const field of Object.keys(expression)) {
    if (field !== 'key' && field !== 'operator' && field !== 'values') {
      fail(join(path, field), `match expression has no field ${quote(field)}`);
      ok = false;
    }
  }
  const { key, operator, values } = expression;
  const list = readValues(values, path, fail);
  if (list === undefined) ok = false;
  if (!checkOperator(operator, list, path, fail)) ok = false;
  if (typeof key !== 'string') {
    fail(join(path, 'key'), 'key must be a string');
    ok = false;
  }
  // Key and values are checked whatever else is wrong, so every violation is reported at once.
  if (profile !== 'none') {
    for (const problem of requirementProblems(
      typeof key === 'string' ? key : '',
      list ?? [],
      profile,
    )) {
      if (typeof key !== 'string' && problem.valueIndex === undefined) continue;
      const at = problem.valueIndex === undefined ? 'key' : `values[${problem.valueIndex}]`;
      errors.push(
        new LabelwiseError(problem.code, problem.message, { source: { path: join(path, at) } }),
      );
      ok = false;
    }
  }
  if (!ok) return undefined;
  return requirement(key as string, operator as Operator, list ?? [], { path });
}

/**
 * Converts a selector back into a LabelSelector object: Nothing → `null`, Everything → `{}`.
 * Requirements that came from `matchLabels` go back there and expressions keep their original
 * order, so an object round-trips without loss. Other single-value `In` requirements become
 * `matchLabels` when their key is free; everything else becomes `matchExpressions`.
 */
export function toLabelSelector(selector: Selector): LabelSelectorObject | null {
  if (selector.kind === 'nothing') return null;
  // Prototype-free: a key named `__proto__` must stay a label.
  const matchLabels: Record<string, string> = Object.create(null);
  const expressions: { order: number; expression: LabelSelectorRequirementObject }[] = [];
  const inMatchLabels = (req: Requirement): boolean =>
    /(^|\.)matchLabels\./.test(req.origin?.path ?? '');
  for (const req of selector.requirements) {
    if (inMatchLabels(req) && req.values.length === 1)
      matchLabels[req.key] = req.values[0] as string;
  }
  selector.requirements.forEach((req, position) => {
    if (inMatchLabels(req) && req.values.length === 1) return;
    const fromObject = /matchExpressions\[(\d+)\]$/.exec(req.origin?.path ?? '');
    const canBeLabel =
      fromObject === null &&
      req.operator === 'In' &&
      req.values.length === 1 &&
      !(req.key in matchLabels);
    if (canBeLabel) {
      matchLabels[req.key] = req.values[0] as string;
      return;
    }
    const expression: LabelSelectorRequirementObject = { key: req.key, operator: req.operator };
    if (req.operator === 'In' || req.operator === 'NotIn') expression.values = [...req.values];
    expressions.push({
      order: fromObject === null ? 1e9 + position : Number(fromObject[1]),
      expression,
    });
  });
  const out: LabelSelectorObject = {};
  if (Object.keys(matchLabels).length > 0) out.matchLabels = matchLabels;
  if (expressions.length > 0)
    out.matchExpressions = expressions.sort((a, b) => a.order - b.order).map((e) => e.expression);
  return out;
}

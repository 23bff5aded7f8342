/**
 * Kubernetes LabelSelector objects (`matchLabels`, `matchExpressions`), spec §2.2.
 *
 * - `null` or absent is Nothing; `{}` is Everything. Keep the two apart: it is the difference
 *   between "selects no pods" and "selects every pod".
 * - Operators are exactly `In`, `NotIn`, `Exists`, `DoesNotExist` (case-sensitive).
 * - `In`/`NotIn` need at least one value (`[""]` is legal); `Exists`/`DoesNotExist` take none.
 * - Requirements remember where they came from (`matchLabels.app`, `matchExpressions[1]`) so an
 *   object survives object → model → object without loss.
 */
import { LabelwiseError, quote } from '../../base/errors.js';
import type { ValidationProfile } from '../labels.js';
import {
  EVERYTHING,
  NOTHING,
  OPERATORS,
  requirement,
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

/**
 * Converts a LabelSelector object into the model, returning every problem found (with JSON
 * paths). `selector` is undefined when there were errors. Never throws.
 */
export function fromLabelSelector(
  object: unknown,
  options: LabelSelectorOptions = {},
): { selector: Selector | undefined; errors: LabelwiseError[] } {
  const base = options.path ?? '';
  const errors: LabelwiseError[] = [];
  const fail = (path: string, message: string): void => {
    errors.push(new LabelwiseError('SELECTOR_INVALID_LABEL_SELECTOR', message, { path }));
  };
  if (object === null || object === undefined) return { selector: NOTHING, errors };
  if (!isPlainObject(object)) {
    fail(base, 'a label selector must be a mapping with matchLabels and/or matchExpressions');
    return { selector: undefined, errors };
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
        requirements.push(requirement(key, 'In', [value], { path }));
      }
    }
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) {
      fail(join(base, 'matchExpressions'), 'matchExpressions must be a list');
    } else {
      matchExpressions.forEach((expression: unknown, index) => {
        const path = join(join(base, 'matchExpressions'), `[${index}]`);
        const req = readExpression(expression, path, fail);
        if (req !== undefined) requirements.push(req);
      });
    }
  }
  if (errors.length > 0) return { selector: undefined, errors };
  const selector = requirements.length === 0 ? EVERYTHING : selectorOf(requirements);
  if (options.profile !== 'none') {
    errors.push(...validateSelector(selector, options.profile ?? 'kubernetes'));
  }
  return errors.length > 0 ? { selector: undefined, errors } : { selector, errors };
}

function readExpression(
  expression: unknown,
  path: string,
  fail: (path: string, message: string) => void,
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
  if (typeof key !== 'string') {
    fail(join(path, 'key'), 'key must be a string');
    ok = false;
  }
  if (typeof operator !== 'string' || !(OPERATORS as readonly string[]).includes(operator)) {
    fail(
      join(path, 'operator'),
      `unknown operator ${quote(String(operator))}, expected one of In, NotIn, Exists, DoesNotExist`,
    );
    ok = false;
  }
  let list: string[] = [];
  if (values !== undefined && values !== null) {
    if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
      fail(join(path, 'values'), 'values must be a list of strings');
      ok = false;
    } else {
      list = values as string[];
    }
  }
  if (!ok) return undefined;
  const op = operator as Operator;
  if ((op === 'In' || op === 'NotIn') && list.length === 0) {
    fail(join(path, 'values'), `operator ${op} needs at least one value`);
    return undefined;
  }
  if ((op === 'Exists' || op === 'DoesNotExist') && list.length > 0) {
    fail(join(path, 'values'), `operator ${op} takes no values`);
    return undefined;
  }
  return requirement(key as string, op, list, { path });
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

import type { Labels } from './labels.js';
import type { Requirement, Selector } from './model.js';

/** A compiled selector: `true` when the label set matches. Never throws, never allocates. */
export type Predicate = (labels: Labels) => boolean;

const MATCH_NOTHING: Predicate = () => false;
const MATCH_EVERYTHING: Predicate = () => true;

/** Sets of at most this many values compile to `===` chains; larger ones to a Set lookup. */
const INLINE_VALUES = 4;

/**
 * Compiles a selector into a fast predicate (docs/selector.md, "Matching semantics").
 *
 * HOT PATH — measure with `npm run bench -- selector` before changing. The selector is turned
 * into the source of one function whose body is the `if` chain a person would write, so V8 can
 * inline property loads and string compares. Keys and values are embedded as JSON string
 * literals (always valid, inert JavaScript), never spliced in raw. `In`/`NotIn` compare the loaded
 * value with `===` only; `Exists`/`DoesNotExist` test `typeof v === "string"`, which is as cheap
 * as `!== undefined` and makes inherited properties (`__proto__`, `constructor`) count as absent.
 * Large value sets become a `Set` captured by closure.
 */
export function compile(selector: Selector): Predicate {
  if (selector.kind === 'nothing') return MATCH_NOTHING;
  if (selector.requirements.length === 0) return MATCH_EVERYTHING;
  const sets: ReadonlySet<string>[] = [];
  const checks = selector.requirements.map((req) => compileRequirement(req, sets));
  const body = `return function compiledSelector(l) {\n${checks.join('\n')}\nreturn true;\n};`;
  // The generated source contains only JSON string literals and fixed code: see above.
  const factory = new Function('sets', body) as (sets: ReadonlySet<string>[]) => Predicate;
  return factory(sets);
}

function compileRequirement(req: Requirement, sets: ReadonlySet<string>[]): string {
  const key = JSON.stringify(req.key);
  // No own-property check is needed: none of Object.prototype's properties is a string, so
  // `typeof` alone tells a label from an inherited property.
  const load = `l[${key}]`;
  switch (req.operator) {
    case 'Exists':
      return `if (typeof ${load} !== "string") return false;`;
    case 'DoesNotExist':
      return `if (typeof ${load} === "string") return false;`;
    // `In` and `NotIn` need no presence test: an absent key (or an inherited, non-string
    // property) equals no listed value, so `In` fails and `NotIn` holds, as docs/selector.md, "The model" requires.
    // Dropping the `typeof` branch brought the predicate from 1.6× to within 1.1× of a
    // hand-written one in `npm run bench -- selector`.
    case 'In':
      return req.values.length === 1
        ? `if (${load} !== ${JSON.stringify(req.values[0])}) return false;`
        : `{ const v = ${load}; if (!(${valueTest('v', req.values, sets)})) return false; }`;
    case 'NotIn':
      return req.values.length === 1
        ? `if (${load} === ${JSON.stringify(req.values[0])}) return false;`
        : `{ const v = ${load}; if (${valueTest('v', req.values, sets)}) return false; }`;
  }
}

function valueTest(
  variable: string,
  values: readonly string[],
  sets: ReadonlySet<string>[],
): string {
  if (values.length <= INLINE_VALUES) {
    return values.map((value) => `${variable} === ${JSON.stringify(value)}`).join(' || ');
  }
  sets.push(new Set(values));
  return `sets[${sets.length - 1}].has(${variable})`;
}

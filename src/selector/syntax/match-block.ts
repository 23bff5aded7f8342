/**
 * Datum match blocks (docs/selector.md, "Datum match blocks"): five optional forms, all ANDed.
 *
 *   labels:  {k: v}       → k In [v]
 *   oneOf:   {k: [v, …]}  → k In [v, …]
 *   noneOf:  {k: [v, …]}  → k NotIn [v, …]
 *   has:     [k, …]       → k Exists
 *   missing: [k, …]       → k DoesNotExist
 *
 * An absent or empty block matches everything. An unknown form is an error naming it. An empty
 * `oneOf` list can never match (the block becomes Nothing) and an empty `noneOf` list always
 * holds (the term is dropped); both are legal and reported as warnings for the linter.
 * Scalars are taken as their literal text: callers reading YAML should pass each scalar's source
 * text; numbers and booleans given as JS values are printed with `String`.
 */
import { diagnosticFromError } from '../../base/diagnostic.js';
import type { Diagnostic } from '../../base/diagnostic.js';
import { LabelwiseError, quote } from '../../base/errors.js';
import { sortStrings } from '../labels.js';
import type { ValidationProfile } from '../labels.js';
import { EVERYTHING, NOTHING, requirement, selectorOf, validateSelector } from '../model.js';
import type { Requirement, Selector } from '../model.js';
import { pushAll } from '../../base/arrays.js';

export const MATCH_FORMS = Object.freeze(['labels', 'oneOf', 'noneOf', 'has', 'missing'] as const);

/** Options for {@link fromMatchBlock}. */
export interface MatchBlockOptions {
  /** Path of the block in its document, used in error paths. Default: `match`. */
  path?: string;
  /** Key/value rules to enforce, or `none`. Default: `datum`. */
  profile?: ValidationProfile | 'none';
}

export interface MatchBlockResult {
  /** Undefined when there were errors. */
  selector: Selector | undefined;
  errors: LabelwiseError[];
  warnings: LabelwiseError[];
  /** Errors and warnings as the shared diagnostics (module `selector`), for reports. */
  diagnostics: Diagnostic[];
}

function result(
  selector: Selector | undefined,
  errors: LabelwiseError[],
  warnings: LabelwiseError[],
): MatchBlockResult {
  const diagnostics: Diagnostic[] = [
    ...errors.map((e) => diagnosticFromError(e, 'selector')),
    ...warnings.map((w) => ({
      ...diagnosticFromError(w, 'selector'),
      severity: 'warning' as const,
    })),
  ];
  return { selector: errors.length > 0 ? undefined : selector, errors, warnings, diagnostics };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return undefined;
}

/** Converts a match block into the model, collecting every problem. Never throws. */
export function fromMatchBlock(block: unknown, options: MatchBlockOptions = {}): MatchBlockResult {
  const base = options.path ?? 'match';
  const errors: LabelwiseError[] = [];
  const warnings: LabelwiseError[] = [];
  const fail = (path: string, message: string): void => {
    errors.push(new LabelwiseError('SELECTOR_INVALID_MATCH', message, { source: { path } }));
  };
  if (block === null || block === undefined) return result(EVERYTHING, errors, warnings);
  if (!isPlainObject(block)) {
    fail(base, 'match must be a mapping of labels, oneOf, noneOf, has and missing');
    return result(undefined, errors, warnings);
  }
  const requirements: Requirement[] = [];
  let never = false;
  for (const [form, body] of Object.entries(block)) {
    const path = `${base}.${form}`;
    switch (form) {
      case 'labels':
        readMapping(body, path, fail, (key, value, at) => {
          const text = scalarText(value);
          if (text === undefined) fail(at, `${form}.${key} must be a scalar value`);
          else requirements.push(requirement(key, 'In', [text], { path: at }));
        });
        break;
      case 'oneOf':
      case 'noneOf':
        readMapping(body, path, fail, (key, value, at) => {
          if (!Array.isArray(value)) {
            fail(at, `${form}.${key} must be a list of values`);
            return;
          }
          const texts = value.map(scalarText);
          if (texts.some((text) => text === undefined)) {
            fail(at, `${form}.${key} must list scalar values`);
            return;
          }
          if (texts.length === 0) {
            warnings.push(
              new LabelwiseError(
                'SELECTOR_EMPTY_MATCH_LIST',
                form === 'oneOf'
                  ? `${form}.${key} is empty, so this matcher can never match`
                  : `${form}.${key} is empty, so this term always holds`,
                { source: { path: at } },
              ),
            );
            if (form === 'oneOf') never = true;
            return;
          }
          requirements.push(
            requirement(key, form === 'oneOf' ? 'In' : 'NotIn', texts as string[], { path: at }),
          );
        });
        break;
      case 'has':
      case 'missing':
        if (!Array.isArray(body)) {
          fail(path, `${form} must be a list of label keys`);
          break;
        }
        body.forEach((key: unknown, index) => {
          const at = `${path}[${index}]`;
          if (typeof key !== 'string' || key === '') fail(at, `${form} entries must be label keys`);
          else
            requirements.push(
              requirement(key, form === 'has' ? 'Exists' : 'DoesNotExist', [], { path: at }),
            );
        });
        break;
      default:
        fail(path, `match has no field ${quote(form)}`);
    }
  }
  const parsed = selectorOf(requirements);
  // Validate every well-formed term even when another form is malformed or an empty oneOf makes
  // the block Nothing: a bad key elsewhere is still the user's mistake and is reported now, not
  // after the first error is fixed.
  if (options.profile !== 'none')
    pushAll(errors, validateSelector(parsed, options.profile ?? 'datum'));
  const selector = never ? NOTHING : parsed;
  return result(selector, errors, warnings);
}

function readMapping(
  body: unknown,
  path: string,
  fail: (path: string, message: string) => void,
  each: (key: string, value: unknown, path: string) => void,
): void {
  if (body === null || body === undefined) return;
  if (!isPlainObject(body)) {
    fail(path, `${path.split('.').pop()} must be a mapping of label keys`);
    return;
  }
  for (const [key, value] of Object.entries(body)) each(key, value, `${path}.${key}`);
}

/**
 * Prints a selector as a match block (the inverse of {@link fromMatchBlock}): single-value `In`
 * under `labels`, other `In` under `oneOf`, and so on; several requirements of one form on one
 * key merge (the block means the same as the selector). Nothing is not representable without a
 * key, so it returns undefined.
 */
export function toMatchBlock(selector: Selector): Record<string, unknown> | undefined {
  if (selector.kind === 'nothing') return undefined;
  const block: Record<string, Record<string, unknown> | string[]> = {};
  const mapping = (form: string): Record<string, unknown> =>
    (block[form] ??= Object.create(null) as Record<string, unknown>) as Record<string, unknown>;
  const list = (form: string): string[] => (block[form] ??= []) as string[];
  for (const req of selector.requirements) {
    switch (req.operator) {
      case 'In': {
        if (req.values.length === 1 && !(req.key in mapping('labels'))) {
          mapping('labels')[req.key] = req.values[0];
          break;
        }
        // A form holds one list per key, so a second `In` on the key merges into the first:
        // both must hold, which is the intersection (empty: the block can never match).
        const previous = mapping('oneOf')[req.key] as string[] | undefined;
        mapping('oneOf')[req.key] =
          previous === undefined ? [...req.values] : previous.filter((v) => req.values.includes(v));
        break;
      }
      case 'NotIn': {
        // Two `NotIn` on one key merge into the union of the excluded values.
        const previous = mapping('noneOf')[req.key] as string[] | undefined;
        mapping('noneOf')[req.key] =
          previous === undefined
            ? [...req.values]
            : sortStrings([...new Set([...previous, ...req.values])]);
        break;
      }
      case 'Exists':
        list('has').push(req.key);
        break;
      case 'DoesNotExist':
        list('missing').push(req.key);
        break;
    }
  }
  for (const form of Object.keys(block)) {
    const value = block[form];
    if (value !== undefined && !Array.isArray(value) && Object.keys(value).length === 0)
      delete block[form];
  }
  return block;
}

// The selector's conformance suite: cases recorded from Kubernetes apimachinery's own tests
// (selector_test.go, labels_test.go, validation_test.go, helpers_test.go, meta/v1 validation),
// kept as data in the JSON files beside this runner. Each case names its upstream file and test
// function. `expect`-style fields state what apimachinery does; where labelwise deliberately
// differs, the case carries `ours` (what labelwise does instead) and a `difference` id that must
// be listed in docs/selector.md ("Differences from Kubernetes"). Strings may abbreviate long
// runs as `${a*254}` (254 × "a").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LabelwiseError } from '../../../src/base/errors.js';
import {
  EVERYTHING,
  NOTHING,
  compile,
  formatKubernetes,
  fromLabelSelector,
  isEverything,
  labelsFrom,
  matches,
  parseEqualityList,
  parseSelector,
  requirement,
  selectorOf,
  validateLabels,
} from '../../../src/selector/index.js';
import type {
  KubernetesSpelling,
  Operator,
  Requirement,
  Selector,
} from '../../../src/selector/index.js';
import { keyProblems, valueProblems } from '../../../src/selector/labels.js';
import { lex } from '../../../src/selector/syntax/k8s-lex.js';
import type { TokenKind } from '../../../src/selector/syntax/k8s-lex.js';

const here = dirname(fileURLToPath(import.meta.url));
const docs = readFileSync(join(here, '../../../docs/selector.md'), 'utf8');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Case = Record<string, Json> & { file: string; test: string; kind: string };

/** Expands `${c*n}` runs in every string of a value. */
function expand<T extends Json>(value: T): T {
  if (typeof value === 'string')
    return value.replace(/\$\{(.)\*(\d+)\}/g, (_, ch: string, n: string) =>
      ch.repeat(Number(n)),
    ) as T;
  if (Array.isArray(value)) return value.map((v) => expand(v)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value)) out[expand(k)] = expand(v);
    return out as T;
  }
  return value;
}

/** What the case expects of labelwise: upstream's facts, overridden by `ours` where we differ. */
function wanted(c: Case): Record<string, Json> {
  const ours = (c.ours ?? {}) as Record<string, Json>;
  return { ...c, ...ours };
}

const TOKENS: Readonly<Record<string, TokenKind>> = {
  IdentifierToken: 'identifier',
  InToken: 'in',
  NotInToken: 'notin',
  EqualsToken: 'eq',
  DoubleEqualsToken: 'deq',
  NotEqualsToken: 'neq',
  DoesNotExistToken: 'not',
  GreaterThanToken: 'gt',
  LessThanToken: 'lt',
  OpenParToken: 'open',
  ClosedParToken: 'close',
  CommaToken: 'comma',
  EndOfStringToken: 'end',
};

/** apimachinery's operator names (selection.Operator) → the model and its Kubernetes spelling. */
const OPERATORS: Readonly<Record<string, [Operator, KubernetesSpelling | undefined]>> = {
  in: ['In', 'in'],
  notin: ['NotIn', 'notin'],
  '=': ['In', '='],
  '==': ['In', '=='],
  '!=': ['NotIn', '!='],
  exists: ['Exists', undefined],
  '!': ['DoesNotExist', undefined],
};

type Term = [string, string, string[]];

function build(terms: readonly Term[]): Selector {
  return selectorOf(
    terms.map(([key, op, values]) => {
      const [operator, spelling] = OPERATORS[op] as [Operator, KubernetesSpelling | undefined];
      return requirement(key, operator, values, spelling === undefined ? undefined : { spelling });
    }),
  );
}

function termsOf(selector: Selector): Term[] {
  return selector.requirements.map((r: Requirement) => {
    let op: string = r.operator === 'Exists' ? 'exists' : r.operator === 'DoesNotExist' ? '!' : '';
    if (op === '') op = r.origin?.spelling ?? (r.operator === 'In' ? 'in' : 'notin');
    return [r.key, op, [...r.values]];
  });
}

/** Runs `fn`; returns its value, or the LabelwiseError it threw. */
function attempt<T>(fn: () => T): T | LabelwiseError {
  try {
    return fn();
  } catch (error) {
    if (error instanceof LabelwiseError) return error;
    throw error;
  }
}

function checkValidity<T>(result: T | LabelwiseError, want: Record<string, Json>): T | undefined {
  if (want.valid === false) {
    assert.ok(result instanceof LabelwiseError, 'expected an error');
    if (typeof want.code === 'string') assert.equal(result.code, want.code, result.message);
    if (typeof want.message === 'string') assert.equal(result.message, want.message);
    return undefined;
  }
  assert.ok(!(result instanceof LabelwiseError), `unexpected error: ${String(result)}`);
  return result as T;
}

function fromSet(set: Json): Selector {
  const result = fromLabelSelector({ matchLabels: set });
  assert.ok(result.selector !== undefined, JSON.stringify(result.errors));
  return result.selector;
}

/** Field paths of a LabelSelector result, relative to `prefix`. */
function fields(result: ReturnType<typeof fromLabelSelector>, prefix = ''): string[] {
  return result.errors.map((e) => (e.source.path ?? '').slice(prefix.length));
}

const RUNNERS: Record<string, (c: Case, want: Record<string, Json>) => void> = {
  parse(c, want) {
    const selector = checkValidity(
      attempt(() => parseSelector(c.input as string)),
      want,
    );
    if (selector === undefined) return;
    if (typeof want.kubernetes === 'string')
      assert.equal(formatKubernetes(selector), want.kubernetes);
    if (Array.isArray(want.requirements)) assert.deepEqual(termsOf(selector), want.requirements);
  },
  match(c, want) {
    const selector = checkValidity(
      attempt(() => parseSelector(c.selector as string)),
      want,
    );
    if (selector === undefined) return;
    const labels = labelsFrom(c.labels as Record<string, string>);
    assert.equal(matches(selector, labels), want.matches);
    assert.equal(compile(selector)(labels), want.matches, 'compiled predicate');
  },
  'match-set'(c, want) {
    const labels = labelsFrom(c.labels as Record<string, string>);
    assert.equal(matches(fromSet(c.set as Json), labels), want.matches);
  },
  'requirements-match'(c, want) {
    const labels = labelsFrom(c.labels as Record<string, string>);
    assert.equal(matches(build(c.requirements as Term[]), labels), want.matches);
  },
  'to-string'(c, want) {
    assert.equal(formatKubernetes(build(c.requirements as Term[])), want.string);
  },
  'lex-first'(c, want) {
    const first = lex(c.input as string)[0];
    assert.equal(first?.kind, TOKENS[want.token as string]);
    assert.equal(first?.text, want.literal);
  },
  lex(c, want) {
    let kinds = lex(c.input as string).map((t) => t.kind);
    const tokens = want.tokens as string[];
    if (tokens[tokens.length - 1] !== 'EndOfStringToken') kinds = kinds.slice(0, -1);
    assert.deepEqual(
      kinds,
      tokens.map((t) => TOKENS[t]),
    );
  },
  requirement(c, want) {
    const expression: Record<string, Json> = { key: c.key as Json, operator: c.operator as Json };
    if ((c.values as Json[]).length > 0) expression.values = c.values as Json[];
    const result = fromLabelSelector({ matchExpressions: [expression] });
    assert.deepEqual(fields(result, 'matchExpressions[0].'), want.fields);
  },
  'set-validate'(c, want) {
    const result = fromLabelSelector({ matchLabels: c.set });
    assert.deepEqual(fields(result), want.fields);
    if (typeof want.string === 'string' && result.selector !== undefined)
      assert.equal(formatKubernetes(result.selector), want.string);
  },
  'set-string'(c, want) {
    const selector = fromSet(c.set as Json);
    assert.equal(formatKubernetes(selector), want.string);
    if (want.everything === true) assert.ok(isEverything(selector));
  },
  'matches-nothing'(c, want) {
    let selector: Selector;
    if (c.special === 'nothing') selector = NOTHING;
    else if (c.special === 'everything') selector = EVERYTHING;
    else if (c.set !== undefined) selector = fromSet(c.set as Json);
    else selector = parseSelector(c.selector as string);
    assert.equal(selector.kind === 'nothing', want.want);
  },
  'equality-list'(c, want) {
    const selector = checkValidity(
      attempt(() => parseEqualityList(c.input as string)),
      want,
    );
    if (selector === undefined) return;
    const labels = Object.fromEntries(selector.requirements.map((r) => [r.key, r.values[0]]));
    assert.deepEqual(labels, want.labels);
  },
  'label-key'(c, want) {
    assert.equal(keyProblems(c.value as string, 'kubernetes').length === 0, want.valid);
  },
  'label-value'(c, want) {
    assert.equal(valueProblems(c.value as string, 'kubernetes').length === 0, want.valid);
  },
  'validate-labels'(c, want) {
    const errors = validateLabels(labelsFrom(c.labels as Record<string, string>), 'kubernetes');
    assert.deepEqual(
      errors.map((e) => e.code),
      want.codes,
    );
  },
  'as-selector'(c, want) {
    const result = fromLabelSelector(c.object);
    if (want.valid === false) {
      assert.equal(result.selector, undefined);
      assert.ok(result.errors.length > 0);
      return;
    }
    assert.ok(result.selector !== undefined, JSON.stringify(result.errors));
    assert.equal(formatKubernetes(result.selector), want.string);
    if (typeof want.selectorKind === 'string')
      assert.equal(result.selector.kind, want.selectorKind);
  },
  'validate-label-selector'(c, want) {
    const result = fromLabelSelector(c.object, { path: c.path as string });
    assert.deepEqual(fields(result), want.fields);
  },
};

const files = readdirSync(here)
  .filter((f) => f.endsWith('.json'))
  .sort();
let total = 0;
for (const name of files) {
  const document = JSON.parse(readFileSync(join(here, name), 'utf8')) as { cases: Case[] };
  document.cases.forEach((raw, index) => {
    total++;
    const c = expand(raw);
    const subject = c.input ?? c.selector ?? c.value ?? c.key ?? c.name ?? c.string ?? '';
    test(`conformance ${c.file} ${c.test} #${index}: ${JSON.stringify(subject)}`, () => {
      assert.ok(c.file.startsWith('pkg/') && /^Test[A-Z]/.test(c.test), 'names its upstream');
      const run = RUNNERS[c.kind];
      assert.ok(run !== undefined, `unknown kind ${c.kind}`);
      const ours = (c.ours ?? {}) as Record<string, Json>;
      const differs = Object.keys(ours).some(
        (k) => k in c && JSON.stringify(ours[k]) !== JSON.stringify(c[k]),
      );
      if (differs || c.difference !== undefined) {
        assert.ok(typeof c.difference === 'string', 'a deliberate difference needs an id');
        assert.ok(
          docs.includes(`\`${c.difference}\``),
          `difference ${c.difference} is listed in docs/selector.md`,
        );
      }
      run(c, wanted(c));
    });
  });
}

test('conformance: the suite holds every recorded case', () => {
  assert.ok(files.length >= 4, 'four case files');
  assert.ok(total >= 250, `${total} cases`);
});

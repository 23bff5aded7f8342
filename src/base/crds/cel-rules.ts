/**
 * The CEL rules of a structural schema (`x-kubernetes-validations`), evaluated over an object the
 * way the API server does on create: each rule sees the value at its schema node as `self`,
 * property names are escaped (`namespace` → `__namespace__`, `-` → `__dash__`, …), integers are
 * CEL ints. Transition rules (those reading `oldSelf`) do not apply on create and are skipped.
 * Rules are parsed once per schema, when it is compiled.
 */
import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import type { SchemaNode } from './strict-schema.js';

/** A compiled rule: `evaluate` returns the rule's result for one `self`. */
interface CompiledRule {
  readonly rule: string;
  readonly message: string;
  readonly fieldPath?: string;
  readonly evaluate: (context: Record<string, unknown>) => unknown;
}

/** A schema node's rules and its children, as far as they hold rules. */
export interface RuleTree {
  readonly rules: readonly CompiledRule[];
  readonly properties: ReadonlyMap<string, RuleTree>;
  /** The escaped names of every declared property (to tell map entries apart). */
  readonly escaped: ReadonlySet<string>;
  readonly items?: RuleTree;
  readonly additional?: RuleTree;
}

export interface CelProblem {
  /** `spec.rules[0].matches[0].path`. */
  readonly path: string;
  readonly message: string;
}

const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** Kubernetes' escaping of a property name for CEL (apiserver/pkg/cel/escaping.go). */
export function escapeCelName(name: string): string {
  if (RESERVED.has(name)) return `__${name}__`;
  return name
    .replace(/__/g, '__underscores__')
    .replace(/\./g, '__dot__')
    .replace(/-/g, '__dash__')
    .replace(/\//g, '__slash__');
}

/** One environment for every rule: the standard library (Kubernetes' extension libraries aside). */
const ENV = celEnv();

function isNode(value: unknown): value is SchemaNode {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Builds the rule tree of a schema; undefined where no rule lives below. */
export function compileRules(schema: unknown): RuleTree | undefined {
  if (!isNode(schema)) return undefined;
  const rules: CompiledRule[] = [];
  const raw = schema['x-kubernetes-validations'];
  if (Array.isArray(raw))
    for (const entry of raw) {
      if (!isNode(entry) || typeof entry.rule !== 'string') continue;
      if (/\boldSelf\b/.test(entry.rule)) continue;
      rules.push({
        rule: entry.rule,
        message: typeof entry.message === 'string' ? entry.message : `failed rule: ${entry.rule}`,
        ...(typeof entry.fieldPath === 'string' ? { fieldPath: entry.fieldPath } : {}),
        evaluate: plan(ENV, parse(entry.rule)) as (context: Record<string, unknown>) => unknown,
      });
    }
  const properties = new Map<string, RuleTree>();
  if (isNode(schema.properties))
    for (const [name, child] of Object.entries(schema.properties)) {
      const tree = compileRules(child);
      if (tree !== undefined) properties.set(name, tree);
    }
  const items = compileRules(schema.items);
  const additional = compileRules(schema.additionalProperties);
  if (
    rules.length === 0 &&
    properties.size === 0 &&
    items === undefined &&
    additional === undefined
  )
    return undefined;
  return {
    rules,
    properties,
    escaped: new Set(
      Object.keys(isNode(schema.properties) ? schema.properties : {}).map(escapeCelName),
    ),
    ...(items !== undefined ? { items } : {}),
    ...(additional !== undefined ? { additional } : {}),
  };
}

/** Plain data as CEL sees it: escaped property names, integers as ints. */
export function toCel(value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map(toCel);
  if (isNode(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[escapeCelName(key)] = toCel(item);
    return out;
  }
  return value;
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/**
 * Evaluates every applicable rule over `value`; one problem per failed rule. The value is
 * converted to CEL's form once; each rule then sees its node of that form as `self`.
 */
export function evaluateRules(tree: RuleTree | undefined, value: unknown): CelProblem[] {
  if (tree === undefined) return [];
  const problems: CelProblem[] = [];
  walk(tree, toCel(value), '', problems);
  return problems;
}

/**
 * Results by rule and value: rendered objects repeat the same small nodes (a parentRef, a path
 * match) across services, and a rule is a pure function of `self`. Bounded by clearing.
 */
const memo = new Map<string, unknown>();
const MEMO_LIMIT = 50_000;

function stableKey(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'bigint' ? { $int: v.toString() } : v,
  );
}

function run(rule: CompiledRule, self: unknown, selfKey: string): unknown {
  const key = `${rule.rule}\u0000${selfKey}`;
  if (memo.has(key)) return memo.get(key);
  let result: unknown;
  try {
    result = rule.evaluate({ self });
    // A rule that cannot be evaluated (no such key, type error) is rejected by the API server.
    if (isCelError(result)) result = result.message;
  } catch (error) {
    result = error instanceof Error ? error.message : String(error);
  }
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, result);
  return result;
}

function walk(tree: RuleTree, self: unknown, path: string, problems: CelProblem[]): void {
  if (self === undefined || self === null) return;
  const selfKey = tree.rules.length > 0 ? stableKey(self) : '';
  for (const rule of tree.rules) {
    const result = run(rule, self, selfKey);
    if (result !== true)
      problems.push({
        path: rule.fieldPath === undefined ? path : `${path}${rule.fieldPath}`,
        message:
          typeof result === 'string' && result !== ''
            ? `${rule.message} (${result.split('\n')[0] ?? ''})`
            : rule.message,
      });
  }
  if (Array.isArray(self)) {
    const items = tree.items;
    if (items !== undefined) self.forEach((item, i) => walk(items, item, join(path, i), problems));
  } else if (isNode(self)) {
    for (const [name, child] of tree.properties)
      walk(child, self[escapeCelName(name)], join(path, name), problems);
    const additional = tree.additional;
    if (additional !== undefined)
      for (const [key, item] of Object.entries(self))
        if (!tree.escaped.has(key)) walk(additional, item, join(path, key), problems);
  }
}

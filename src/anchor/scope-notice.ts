/**
 * Scopes that read like something they are not. `ANCHORD_LABEL_SELECTOR` is equality only
 * (anchord's grammar, seed F-42): `role!=ldap` is the key `role!` equal to `ldap`, and
 * `role=(a|b)` is the value `(a|b)`. Both are kept as anchord keeps them, so the anchor claims
 * what anchord would; these helpers warn about them and print such a scope with its keys and
 * values quoted, so a reader cannot take it for "not ldap" or "a or b". Pure.
 */
import { quote } from '../base/errors.js';
import { formatSelector } from '../selector/index.js';
import type { Selector } from '../selector/index.js';

const SET_LIKE = /^\s*(?:\(.*\)|\{.*\}|\[.*\]|(?:not)?in\s*\(.*)\s*$/i;
const PATTERN_LIKE = /[*?^$|\\~]|\.\*|\.\+/;

/** Why a key and value read like another operator, or undefined when they do not. */
function misreading(key: string, value: string): string | undefined {
  const pair = `${quote(key)}=${quote(value)}`;
  if (key.endsWith('!'))
    return `key ${quote(key)} ends in "!": the selector is equality only, so this claims containers labelled ${pair}, not those whose ${quote(key.slice(0, -1))} is other than ${quote(value)}`;
  if (value.startsWith('='))
    return `value ${quote(value)} starts with "=": the selector is equality only ("==" is not an operator), so this claims containers labelled ${pair}`;
  if (SET_LIKE.test(value))
    return `value ${quote(value)} looks like a set: the selector is equality only, so this claims containers labelled exactly ${pair}`;
  if (PATTERN_LIKE.test(value))
    return `value ${quote(value)} looks like a pattern: the selector is equality only, so this claims containers labelled exactly ${pair}`;
  return undefined;
}

/** One message per requirement of an equality scope that reads like another operator. */
export function misleadingScope(scope: Selector): string[] {
  const out: string[] = [];
  for (const r of scope.requirements)
    for (const value of r.values) {
      const message = misreading(r.key, value);
      if (message !== undefined) out.push(message);
    }
  return out;
}

/**
 * The scope as it is printed in reports: the Kubernetes selector string, or, when a pair reads
 * like another operator, every pair as `"key"="value"` (which no selector syntax reads otherwise).
 */
export function scopeText(scope: Selector): string {
  if (misleadingScope(scope).length === 0) return formatSelector(scope);
  return scope.requirements
    .flatMap((r) => r.values.map((v) => `${quote(r.key)}=${quote(v)}`))
    .join(',');
}

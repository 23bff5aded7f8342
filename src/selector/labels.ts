import { LabelwiseError, quote } from '../base/errors.js';
import { compareText } from '../base/text.js';

/**
 * A label set: string keys to string values, one value per key, `""` allowed. Label sets built
 * from untrusted input must not inherit from Object.prototype (see {@link labelsFrom}); matching
 * treats any non-string property as absent, so `__proto__` or `constructor` can never match by
 * accident even on a plain object.
 */
export type Labels = Readonly<Record<string, string>>;

/** The rules keys and values are checked against. See docs/selector.md, "Validation profiles". */
export type ValidationProfile = 'kubernetes' | 'datum' | 'docker';

/** Builds a prototype-free label set from entries or a plain object. Later entries win. */
export function labelsFrom(
  source: Iterable<readonly [string, string]> | Readonly<Record<string, string>>,
): Labels {
  const out: Record<string, string> = Object.create(null);
  const entries: Iterable<readonly [string, string]> =
    Symbol.iterator in source
      ? (source as Iterable<readonly [string, string]>)
      : Object.entries(source as Record<string, string>);
  for (const [key, value] of entries) out[key] = value;
  return out;
}

/** Own string-valued keys of a label set, sorted with {@link compareText}. */
export function labelKeys(labels: Labels): string[] {
  return Object.keys(labels)
    .filter((key) => typeof labels[key] === 'string')
    .sort(compareText);
}

/** The value of `key`, or undefined when absent (non-string properties, such as an ordinary object's inherited `constructor`, are absent). */
export function labelValue(labels: Labels, key: string): string | undefined {
  const value = labels[key];
  return typeof value === 'string' ? value : undefined;
}

/** Matches a UTF-16 unit whose order differs between code units and code points. */
const ABOVE_SURROGATES = /[\ud800-\uffff]/;

/**
 * Sorts `values` in place by code point ({@link compareText}) and returns it. Without
 * surrogates or units above them, code-unit order is code-point order, so the engine's native
 * sort (several times faster than a comparator) gives the same result.
 */
export function sortStrings(values: string[]): string[] {
  for (const value of values) {
    if (ABOVE_SURROGATES.test(value)) return values.sort(compareText);
  }
  return values.sort();
}

const K8S_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const K8S_DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DATUM_NAME = /^[A-Za-z0-9.\-_+]{1,256}$/;

/** The reserved Datum label prefix; only `datum/host` exists (injected from the Host's name). */
export const DATUM_RESERVED_PREFIX = 'datum/';
export const DATUM_HOST_LABEL = 'datum/host';

/** Length in UTF-8 bytes: what Kubernetes' limits count (Go's `len` on a string). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

function kubernetesKeyProblems(key: string): string[] {
  const parts = key.split('/');
  if (parts.length > 2) return [`key ${quote(key)} may contain at most one '/'`];
  const problems: string[] = [];
  let name = key;
  if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0) problems.push(`key ${quote(key)} has an empty prefix before '/'`);
    else {
      if (utf8Length(prefix) > 253)
        problems.push(`key ${quote(key)} has a prefix longer than 253 characters`);
      if (!K8S_DNS_SUBDOMAIN.test(prefix))
        problems.push(
          `key prefix ${quote(prefix)} must be a lowercase DNS subdomain (a-z, 0-9, '-', '.', alphanumeric at both ends)`,
        );
    }
  }
  // Like apimachinery, an empty name fails both the emptiness and the character rule.
  if (name.length === 0) problems.push(`key ${quote(key)} has an empty name`);
  else if (utf8Length(name) > 63)
    problems.push(`key name ${quote(name)} is longer than 63 characters`);
  if (!K8S_NAME.test(name))
    problems.push(
      `key name ${quote(name)} must be alphanumeric at both ends with only '-', '_' or '.' inside`,
    );
  return problems;
}

/**
 * Every reason `key` is not a valid label key under `profile` (empty when it is valid). Under
 * `kubernetes` the list has one entry per rule broken, as apimachinery's `IsLabelKey` reports
 * them: a 64-character name with a `^` in it breaks two rules.
 */
export function keyProblems(key: string, profile: ValidationProfile): string[] {
  switch (profile) {
    case 'docker':
      return key === '' ? ['key must not be empty'] : [];
    case 'datum': {
      const parts = key.split('/');
      if (parts.length > 2) return [`key ${quote(key)} may contain at most one '/'`];
      for (const part of parts) {
        if (!DATUM_NAME.test(part))
          return [
            `key ${quote(key)} must be 1-256 letters, digits, '.', '-', '_' or '+' (optionally two such names joined by one '/')`,
          ];
      }
      return [];
    }
    case 'kubernetes':
      return kubernetesKeyProblems(key);
  }
}

/** Why `key` is not a valid label key under `profile` (every rule broken, joined), or undefined. */
export function keyProblem(key: string, profile: ValidationProfile): string | undefined {
  const problems = keyProblems(key, profile);
  return problems.length === 0 ? undefined : problems.join('; ');
}

/**
 * Every reason `value` is not a valid label value under `profile` (empty when it is valid); under
 * `kubernetes` one entry per rule broken, as apimachinery's `IsValidLabelValue` reports them.
 */
export function valueProblems(value: string, profile: ValidationProfile): string[] {
  switch (profile) {
    case 'docker':
      return [];
    case 'datum':
      return DATUM_NAME.test(value)
        ? []
        : [`value ${quote(value)} must be 1-256 letters, digits, '.', '-', '_' or '+'`];
    case 'kubernetes': {
      const problems: string[] = [];
      if (utf8Length(value) > 63)
        problems.push(`value ${quote(value)} is longer than 63 characters`);
      if (value !== '' && !K8S_NAME.test(value))
        problems.push(
          `value ${quote(value)} must be empty or alphanumeric at both ends with only '-', '_' or '.' inside`,
        );
      return problems;
    }
  }
}

/** Why `value` is not a valid label value under `profile` (every rule broken, joined), or undefined. */
export function valueProblem(value: string, profile: ValidationProfile): string | undefined {
  const problems = valueProblems(value, profile);
  return problems.length === 0 ? undefined : problems.join('; ');
}

/** Options for {@link validateLabels}. */
export interface ValidateLabelsOptions {
  /** Where the label set sits in its document (`metadata.labels`), set as each problem's path. */
  readonly path?: string;
}

/**
 * Checks every key and value of a label set that a user declared (a Host, a Pod, a container).
 * Returns every problem, never throws: like apimachinery's `ValidateLabels`, a bad key does not
 * hide a bad value (`{"-k": "-v"}` gives two errors), and each rule broken is its own error.
 * Under `datum`, keys under `datum/` are reserved. Each error names the label (`source.label`)
 * and carries `options.path` when given.
 */
export function validateLabels(
  labels: Labels,
  profile: ValidationProfile,
  options: ValidateLabelsOptions = {},
): LabelwiseError[] {
  const errors: LabelwiseError[] = [];
  for (const key of labelKeys(labels)) {
    const source = options.path === undefined ? { label: key } : { label: key, path: options.path };
    const keyErrors = keyProblems(key, profile);
    for (const message of keyErrors)
      errors.push(new LabelwiseError('SELECTOR_INVALID_LABEL_KEY', message, { source }));
    if (keyErrors.length === 0 && profile === 'datum' && key.startsWith(DATUM_RESERVED_PREFIX)) {
      errors.push(
        new LabelwiseError(
          'SELECTOR_RESERVED_LABEL',
          `label ${quote(key)} uses the reserved prefix "datum/"`,
          {
            source,
            hint: 'datum/ labels are set by Datum itself (datum/host is the Host name); rename the label',
          },
        ),
      );
    }
    for (const message of valueProblems(labels[key] as string, profile))
      errors.push(new LabelwiseError('SELECTOR_INVALID_LABEL_VALUE', message, { source }));
  }
  return errors;
}

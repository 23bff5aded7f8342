import { LabelwiseError, quote } from '../base/errors.js';

/**
 * A label set: string keys to string values, one value per key, `""` allowed. Label sets built
 * from untrusted input must not inherit from Object.prototype (see {@link labelsFrom}); matching
 * treats any non-string property as absent, so `__proto__` or `constructor` can never match by
 * accident even on a plain object.
 */
export type Labels = Readonly<Record<string, string>>;

/** The rules keys and values are checked against. See spec §3. */
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

/** Own string-valued keys of a label set, sorted with {@link compareStrings}. */
export function labelKeys(labels: Labels): string[] {
  return Object.keys(labels)
    .filter((key) => typeof labels[key] === 'string')
    .sort(compareStrings);
}

/** The value of `key`, or undefined when absent (non-string properties, such as an ordinary object's inherited `constructor`, are absent). */
export function labelValue(labels: Labels, key: string): string | undefined {
  const value = labels[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Orders strings by Unicode code point, which is the order of their UTF-8 bytes (what Go's
 * `sort.Strings` gives). Plain `<` compares UTF-16 units and would put U+FFFD before 😀.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(i);
    if (ca === cb) continue;
    // Surrogates (astral code points) sort after every BMP code unit.
    if (ca >= 0xd800) ca = ca <= 0xdfff ? ca + 0x2000 : ca - 0x800;
    if (cb >= 0xd800) cb = cb <= 0xdfff ? cb + 0x2000 : cb - 0x800;
    return ca - cb;
  }
  return a.length - b.length;
}

const K8S_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const K8S_DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DATUM_NAME = /^[A-Za-z0-9.\-_+]{1,256}$/;

/** The reserved Datum label prefix; only `datum/host` exists (injected from the Host's name). */
export const DATUM_RESERVED_PREFIX = 'datum/';
export const DATUM_HOST_LABEL = 'datum/host';

/** Returns why `key` is not a valid label key under `profile`, or undefined when it is. */
export function keyProblem(key: string, profile: ValidationProfile): string | undefined {
  switch (profile) {
    case 'docker':
      return key === '' ? 'key must not be empty' : undefined;
    case 'datum': {
      const parts = key.split('/');
      if (parts.length > 2) return `key ${quote(key)} may contain at most one '/'`;
      for (const part of parts) {
        if (!DATUM_NAME.test(part))
          return `key ${quote(key)} must be 1-256 letters, digits, '.', '-', '_' or '+' (optionally two such names joined by one '/')`;
      }
      return undefined;
    }
    case 'kubernetes': {
      const parts = key.split('/');
      let name = key;
      if (parts.length === 2) {
        const prefix = parts[0] as string;
        name = parts[1] as string;
        if (prefix.length === 0) return `key ${quote(key)} has an empty prefix before '/'`;
        if (prefix.length > 253) return `key ${quote(key)} has a prefix longer than 253 characters`;
        if (!K8S_DNS_SUBDOMAIN.test(prefix))
          return `key prefix ${quote(prefix)} must be a lowercase DNS subdomain (a-z, 0-9, '-', '.', alphanumeric at both ends)`;
      } else if (parts.length > 2) {
        return `key ${quote(key)} may contain at most one '/'`;
      }
      if (name.length === 0) return `key ${quote(key)} has an empty name`;
      if (name.length > 63) return `key name ${quote(name)} is longer than 63 characters`;
      if (!K8S_NAME.test(name))
        return `key name ${quote(name)} must be alphanumeric at both ends with only '-', '_' or '.' inside`;
      return undefined;
    }
  }
}

/** Returns why `value` is not a valid label value under `profile`, or undefined when it is. */
export function valueProblem(value: string, profile: ValidationProfile): string | undefined {
  switch (profile) {
    case 'docker':
      return undefined;
    case 'datum':
      return DATUM_NAME.test(value)
        ? undefined
        : `value ${quote(value)} must be 1-256 letters, digits, '.', '-', '_' or '+'`;
    case 'kubernetes':
      if (value === '') return undefined;
      if (value.length > 63) return `value ${quote(value)} is longer than 63 characters`;
      return K8S_NAME.test(value)
        ? undefined
        : `value ${quote(value)} must be empty or alphanumeric at both ends with only '-', '_' or '.' inside`;
  }
}

/**
 * Checks every key and value of a label set that a user declared (a Host, a Pod, a container).
 * Returns every problem, never throws. Under `datum`, keys under `datum/` are reserved.
 */
export function validateLabels(labels: Labels, profile: ValidationProfile): LabelwiseError[] {
  const errors: LabelwiseError[] = [];
  for (const key of labelKeys(labels)) {
    const keyError = keyProblem(key, profile);
    if (keyError !== undefined) {
      errors.push(new LabelwiseError('SELECTOR_INVALID_LABEL_KEY', keyError, { label: key }));
      continue;
    }
    if (profile === 'datum' && key.startsWith(DATUM_RESERVED_PREFIX)) {
      errors.push(
        new LabelwiseError(
          'SELECTOR_RESERVED_LABEL',
          `label ${quote(key)} uses the reserved prefix "datum/"`,
          { label: key },
          'datum/ labels are set by Datum itself (datum/host is the Host name); rename the label',
        ),
      );
      continue;
    }
    const valueError = valueProblem(labels[key] as string, profile);
    if (valueError !== undefined)
      errors.push(new LabelwiseError('SELECTOR_INVALID_LABEL_VALUE', valueError, { label: key }));
  }
  return errors;
}

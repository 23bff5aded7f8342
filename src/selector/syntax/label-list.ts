/**
 * Label sets written on the command line (DESIGN.md, CLI contract): `k=v,k2=v2`. Items split at
 * commas and each item at its **first** `=`, so `a=b=c` is key `a` with value `b=c`; `k=` is the
 * empty value; blank items are skipped and blank input is the empty label set. Labels given this
 * way are not validated against a profile: the point is to ask "what if an object had these".
 */
import { LabelwiseError, quote } from '../../base/errors.js';
import type { Labels } from '../labels.js';
import { labelsFrom } from '../labels.js';

/** Parses `k=v,k2=v2`. Throws on an item without `=`, an empty key, or a key given twice. */
export function parseLabelList(input: string): Labels {
  const entries = new Map<string, string>();
  let offset = 0;
  for (const item of input.split(',')) {
    const at = item.indexOf('=');
    const source = { offset };
    offset += item.length + 1;
    if (item.trim() === '') continue;
    if (at < 0)
      throw new LabelwiseError('SELECTOR_INVALID_LABELS', `label ${quote(item)} missing '='`, {
        source,
        hint: 'write key=value',
      });
    const key = item.slice(0, at);
    if (key === '')
      throw new LabelwiseError('SELECTOR_INVALID_LABELS', `label ${quote(item)} has an empty key`, {
        source,
      });
    if (entries.has(key)) {
      throw new LabelwiseError(
        'SELECTOR_INVALID_LABELS',
        `label key ${quote(key)} is given twice`,
        { source },
      );
    }
    entries.set(key, item.slice(at + 1));
  }
  return labelsFrom(entries);
}

/** Parses a JSON object of string values (`--labels-json`), for keys or values with commas. */
export function parseLabelJson(input: string): Labels {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch (error) {
    throw new LabelwiseError(
      'SELECTOR_INVALID_LABELS',
      `labels are not valid JSON: ${(error as Error).message}`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new LabelwiseError(
      'SELECTOR_INVALID_LABELS',
      'labels JSON must be an object of string values',
    );
  }
  const entries: [string, string][] = [];
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') {
      throw new LabelwiseError(
        'SELECTOR_INVALID_LABELS',
        `label ${quote(key)} must have a string value`,
        { source: { path: key } },
      );
    }
    entries.push([key, value]);
  }
  return labelsFrom(entries);
}

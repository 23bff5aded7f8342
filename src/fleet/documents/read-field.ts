/**
 * Reading one `desired` field: its YAML value checked against the field's kind (booleans,
 * integers, text, lists, enums, paths, the quoted octal `mode`), with text split at its
 * placeholders. Templated text is checked again after substitution ({@link checkTextKind}).
 */
import type { Template } from '../model.js';
import { parseText } from '../resolve/placeholders.js';
import {
  absolutePathProblem,
  modeProblem,
  nameProblem,
  relativePathProblem,
} from './resource-fields.js';
import type { FieldKind } from './resource-fields.js';
import { textProblem } from './text-rules.js';
import { isNullScalar } from './yaml-tree.js';
import type { YamlValue } from './yaml-tree.js';

/** A field's value as stored in a {@link DesiredField}. */
export type FieldValue = string | number | boolean | Template | readonly (string | Template)[];

export type ReadField =
  { ok: true; value: FieldValue; templated: boolean } | { ok: false; message: string };

/** Checks one field's value against its kind. Templated text is checked after substitution. */
export function readField(kind: FieldKind, value: YamlValue): ReadField {
  switch (kind.kind) {
    case 'bool':
      if (
        value.kind === 'scalar' &&
        !value.quoted &&
        (value.text === 'true' || value.text === 'false')
      )
        return { ok: true, value: value.text === 'true', templated: false };
      return { ok: false, message: `must be true or false, got ${describe(value)}` };
    case 'int': {
      if (value.kind === 'scalar' && !value.quoted && /^-?(0|[1-9][0-9]*)$/.test(value.text)) {
        const n = Number(value.text);
        if (Number.isSafeInteger(n) && (kind.min === undefined || n >= kind.min))
          return { ok: true, value: n, templated: false };
        if (!Number.isSafeInteger(n))
          return {
            ok: false,
            message: `is out of range: ${value.text} is not within ±${Number.MAX_SAFE_INTEGER}`,
          };
      } else if (value.kind === 'scalar' && !value.quoted && /^-?0[0-9]+$/.test(value.text))
        // `0640`-style integers mean octal to some readers and decimal to others: refuse both.
        return {
          ok: false,
          message: `must be written without leading zeros, got ${value.text}`,
        };
      return {
        ok: false,
        message: `must be ${kind.min === 0 ? 'a non-negative' : 'an'} integer, got ${describe(value)}`,
      };
    }
    case 'textList':
    case 'nameList': {
      if (value.kind !== 'list')
        return { ok: false, message: `must be a list, got ${describe(value)}` };
      const items: (string | Template)[] = [];
      let templated = false;
      for (const item of value.items) {
        if (item.kind !== 'scalar' || isNullScalar(item))
          return { ok: false, message: `must list text values, got ${describe(item)}` };
        const read = readText(item.text);
        if (!read.ok) return read;
        if (typeof read.value !== 'string') templated = true;
        else if (kind.kind === 'nameList') {
          const problem = nameProblem(read.value);
          if (problem !== undefined) return { ok: false, message: `entry ${problem}` };
        }
        items.push(read.value);
      }
      return { ok: true, value: items, templated };
    }
    default: {
      if (value.kind !== 'scalar' || (isNullScalar(value) && !value.quoted))
        return { ok: false, message: `must be text, got ${describe(value)}` };
      if (kind.kind === 'mode' && !value.quoted)
        return {
          ok: false,
          message: `must be a quoted octal string such as "0640", got unquoted ${value.text} (write it in quotes so it is not read as a number)`,
        };
      const read = readText(value.text);
      if (!read.ok) return read;
      if (typeof read.value === 'string') {
        const problem = checkTextKind(kind, read.value);
        if (problem !== undefined) return { ok: false, message: problem };
        return { ok: true, value: read.value, templated: false };
      }
      return { ok: true, value: read.value, templated: true };
    }
  }
}

function readText(
  text: string,
): { ok: true; value: string | Template } | { ok: false; message: string } {
  const problem = textProblem(text);
  if (problem !== undefined) return { ok: false, message: problem };
  const parsed = parseText(text);
  return parsed.ok ? { ok: true, value: parsed.value } : { ok: false, message: parsed.message };
}

/** The format check of each item of a list field's final value (after substitution). */
export function checkListKind(kind: FieldKind, items: readonly string[]): string | undefined {
  if (kind.kind !== 'nameList') return undefined;
  for (const item of items) {
    const problem = nameProblem(item);
    if (problem !== undefined) return `entry ${problem}`;
  }
  return undefined;
}

/** The format check of a text field's final value (also used after substitution). */
export function checkTextKind(kind: FieldKind, text: string): string | undefined {
  switch (kind.kind) {
    case 'enum':
      return kind.values.includes(text)
        ? undefined
        : `must be one of ${kind.values.join(', ')}, got ${JSON.stringify(text)}`;
    case 'absPath':
      return absolutePathProblem(text);
    case 'relPath':
      return relativePathProblem(text);
    case 'mode':
      return modeProblem(text);
    case 'name':
      return nameProblem(text);
    default:
      return undefined;
  }
}

function describe(value: YamlValue): string {
  if (value.kind !== 'scalar') return `a ${value.kind === 'map' ? 'mapping' : 'list'}`;
  return value.quoted ? JSON.stringify(value.text) : value.text === '' ? 'nothing' : value.text;
}

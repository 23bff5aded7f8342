// Shared test helpers for the selector suite: compact views of selectors and errors.
import assert from 'node:assert/strict';
import { LabelwiseError } from '../../src/base/errors.js';
import type { Selector } from '../../src/selector/index.js';

/** A selector as `[key, operator, values]` rows, or the kind for Everything/Nothing. */
export function rows(selector: Selector): string | [string, string, string[]][] {
  if (selector.kind !== 'requirements') return selector.kind;
  return selector.requirements.map((r) => [r.key, r.operator, [...r.values]]);
}

/** Expected error: code always; offset/path/message only when given. */
export interface WantError {
  code: string;
  offset?: number;
  path?: string;
  message?: string;
}

/** Runs `fn`, asserts it throws a LabelwiseError matching `want`, and returns the error. */
export function expectError(fn: () => unknown, want: WantError): LabelwiseError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught !== undefined, `expected ${want.code}, but nothing was thrown`);
  assert.ok(caught instanceof LabelwiseError, `expected a LabelwiseError, got ${String(caught)}`);
  checkError(caught, want);
  return caught;
}

/** Asserts one LabelwiseError against `want`. */
export function checkError(error: LabelwiseError, want: WantError): void {
  assert.equal(error.code, want.code, error.message);
  if (want.offset !== undefined) assert.equal(error.source.offset, want.offset, 'offset');
  if (want.path !== undefined) assert.equal(error.source.path, want.path, 'path');
  if (want.message !== undefined) assert.equal(error.message, want.message);
}

/** A plain, sorted copy of a label set (prototype-free sets compare unequal to `{}` otherwise). */
export function plain(labels: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(labels).sort()) {
    Object.defineProperty(out, key, {
      value: labels[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

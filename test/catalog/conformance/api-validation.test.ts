// The API server's and the image reference grammar's own test vectors, recorded as data
// (api-validation.json names the upstream file and test), run against our checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  imageReferenceProblem,
  portNameProblem,
} from '../../../src/catalog/apply/api-validation.js';

interface Vectors {
  readonly upstream: string;
  readonly valid: readonly string[];
  readonly invalid: readonly string[];
}
const cases = JSON.parse(
  readFileSync(new URL('./api-validation.json', import.meta.url), 'utf8'),
) as { portName: Vectors; imageReference: Vectors };

for (const [name, check] of [
  ['portName', portNameProblem],
  ['imageReference', imageReferenceProblem],
] as const) {
  const vectors = cases[name];
  test(`${name}: ${vectors.upstream}`, () => {
    for (const value of vectors.valid) assert.equal(check(value), undefined, JSON.stringify(value));
    for (const value of vectors.invalid)
      assert.notEqual(check(value), undefined, `${JSON.stringify(value)} must be refused`);
  });
}

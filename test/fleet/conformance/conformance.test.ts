// Conformance with Datum (dsgnr/datum): cases recorded as data from Datum's own tests and docs.
// Each case file under this folder holds shared `defaults.files` and a list of `cases`; every
// case names the upstream file and test it comes from, the fleet files, and the expected result.
// The cases run through the real loader and resolver, as `fleet validate` and `fleet resolve` do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import {
  explainResource,
  loadFleet,
  prepareFleet,
  resolveHost,
  validateFleet,
} from '../../../src/fleet/index.js';
import type { Fleet, FleetProblem } from '../../../src/fleet/index.js';
import { excludeMatcher } from '../../../src/fleet/documents/exclude-globs.js';

interface ExpectedProblem {
  code: string;
  /** Substrings the message must hold. */
  message?: string | string[];
  file?: string;
  line?: number;
}

interface Expect {
  /** Every error, exactly (order free). `[]` means the fleet is valid. */
  errors?: ExpectedProblem[];
  /** Warnings that must be present (others may be too). */
  warnings?: ExpectedProblem[];
  /** For `host`: desired state per reference (each field given must equal). */
  desired?: Record<string, Record<string, unknown>>;
  /** For `host`: the references in manifest order. */
  order?: string[];
  /** For `host`: edges per reference. */
  requires?: Record<string, string[]>;
  /** For `host`: the layers that applied, in fold order. */
  layers?: string[];
  /** For `host`: field → layer that set it, and what it displaced (layers, newest first). */
  provenance?: Record<string, { layer: string; displaced: string[] }>;
  /** For `host`: the digest equals that of the same host in `same_digest_files`. */
  same_digest?: boolean;
  /** For `host`: the resource named by `explain` does not apply to the host. */
  explain_applies?: boolean;
}

interface Case {
  name: string;
  upstream: { file: string; test: string };
  files: Record<string, string | null>;
  host?: string;
  explain?: string;
  same_digest_files?: Record<string, string | null>;
  expect: Expect;
}

interface Suite {
  area: string;
  defaults?: { files?: Record<string, string> };
  cases: Case[];
  /** Exclude-glob vectors: `pattern` excludes `path` or not. */
  globs?: {
    upstream: { file: string; test: string };
    cases: { pattern: string; path: string; want: boolean }[];
  };
}

const here = dirname(fileURLToPath(import.meta.url));

function load(files: Record<string, string | null>): Fleet {
  return loadFleet(
    Object.entries(files)
      .filter((entry): entry is [string, string] => entry[1] !== null)
      .map(([path, text]) => ({ path, bytes: text })),
    { paths: Object.keys(files).filter((p) => files[p] !== null) },
  );
}

function matches(problem: FleetProblem, want: ExpectedProblem): boolean {
  if (problem.code !== want.code) return false;
  if (want.file !== undefined && problem.file !== want.file) return false;
  if (want.line !== undefined && problem.line !== want.line) return false;
  const parts =
    want.message === undefined ? [] : Array.isArray(want.message) ? want.message : [want.message];
  return parts.every((part) => problem.message.includes(part));
}

function show(problems: readonly FleetProblem[]): string {
  return problems.map((p) => `${p.file ?? ''}:${p.line ?? ''} ${p.code} ${p.message}`).join('\n');
}

function checkProblems(
  actual: readonly FleetProblem[],
  wanted: readonly ExpectedProblem[],
  exact: boolean,
  what: string,
): void {
  const unmatched = [...actual];
  for (const want of wanted) {
    const at = unmatched.findIndex((p) => matches(p, want));
    assert.ok(at >= 0, `expected ${what} ${JSON.stringify(want)}; got:\n${show(actual)}`);
    unmatched.splice(at, 1);
  }
  if (exact) assert.equal(unmatched.length, 0, `unexpected ${what}s:\n${show(unmatched)}`);
}

function runCase(suite: Suite, c: Case): void {
  const files = { ...(suite.defaults?.files ?? {}), ...c.files };
  const fleet = load(files);
  const report = validateFleet(fleet);
  const errors = report.problems.filter((p) => p.severity === 'error');
  const warnings = report.problems.filter((p) => p.severity === 'warning');
  if (c.expect.errors !== undefined) checkProblems(errors, c.expect.errors, true, 'error');
  if (c.expect.warnings !== undefined) checkProblems(warnings, c.expect.warnings, false, 'warning');
  if (c.host === undefined) return;
  const prepared = prepareFleet(fleet);
  const manifest = resolveHost(prepared, c.host, { provenance: true });
  const byRef = new Map(manifest.resources.map((r) => [r.ref, r]));
  for (const [ref, fields] of Object.entries(c.expect.desired ?? {})) {
    const resource = byRef.get(ref);
    assert.ok(resource !== undefined, `${ref} is not in the manifest of ${c.host}`);
    for (const [field, value] of Object.entries(fields))
      assert.deepEqual(resource.desired[field], value, `${ref}.${field}`);
  }
  if (c.expect.order !== undefined)
    assert.deepEqual(
      manifest.resources.map((r) => r.ref),
      c.expect.order,
    );
  for (const [ref, edges] of Object.entries(c.expect.requires ?? {}))
    assert.deepEqual(byRef.get(ref)?.requires, edges, `${ref} requires`);
  if (c.expect.layers !== undefined)
    assert.deepEqual(
      manifest.layers.map((l) => l.name),
      c.expect.layers,
    );
  for (const [key, want] of Object.entries(c.expect.provenance ?? {})) {
    const [ref, field] = [key.slice(0, key.indexOf(']') + 1), key.slice(key.indexOf(']') + 2)];
    const p = byRef.get(ref)?.provenance[field];
    assert.ok(p !== undefined, `no provenance for ${key}`);
    assert.equal(p.layer, want.layer, `${key} set by`);
    assert.deepEqual(
      p.displaced.map((d) => d.layer),
      want.displaced,
      `${key} displaced`,
    );
  }
  if (c.expect.same_digest !== undefined) {
    const other = load({ ...(suite.defaults?.files ?? {}), ...(c.same_digest_files ?? {}) });
    const otherDigest = resolveHost(prepareFleet(other), c.host).digest;
    assert.equal(manifest.digest === otherDigest, c.expect.same_digest, 'digests compared');
  }
  if (c.explain !== undefined && c.expect.explain_applies !== undefined) {
    const explanation = explainResource(prepared, c.host, c.explain, manifest);
    assert.equal(explanation.applies, c.expect.explain_applies, 'explain applies');
  }
}

const suites = readdirSync(here)
  .filter((name) => name.endsWith('.yaml') && !name.endsWith('.cases.yaml'))
  .sort();
for (const file of suites) {
  const suite = parse(readFileSync(join(here, file), 'utf8')) as Suite;
  for (const c of suite.cases) {
    test(`datum ${suite.area}: ${c.name} (${c.upstream.file} ${c.upstream.test})`, () => {
      assert.ok(c.upstream.file.length > 0 && c.upstream.test.length > 0, 'names its upstream');
      runCase(suite, c);
    });
  }
}

for (const file of suites) {
  const suite = parse(readFileSync(join(here, file), 'utf8')) as Suite;
  const globs = suite.globs;
  if (globs === undefined) continue;
  for (const g of globs.cases)
    test(`datum ${suite.area}: exclude ${JSON.stringify(g.pattern)} ${g.want ? 'matches' : 'does not match'} ${g.path} (${globs.upstream.file} ${globs.upstream.test})`, () => {
      assert.equal(excludeMatcher([g.pattern])(g.path), g.want);
    });
}

test('every conformance case names an upstream file of dsgnr/datum and a test or doc section', () => {
  let count = 0;
  for (const file of suites) {
    const suite = parse(readFileSync(join(here, file), 'utf8')) as Suite;
    for (const c of suite.cases) {
      count++;
      assert.match(c.upstream.file, /^(internal|cmd|docs|examples)\//, c.name);
      assert.ok(c.expect !== undefined, c.name);
    }
  }
  assert.ok(count > 0);
});

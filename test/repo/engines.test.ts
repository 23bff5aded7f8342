/**
 * The Node.js support statement tells the truth. labelwise runs on Node 20 (package.json
 * engines, and CI runs the whole suite on it), but a few dependencies declare a newer Node in
 * their metadata, so `npm ci` prints engine warnings. README.md lists exactly those packages;
 * this test fails when the list is stale either way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

const ROOT = join(import.meta.dirname, '..', '..');

test('the packages that declare a Node newer than ours are exactly the ones the README names', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    engines: { node: string };
  };
  const oldest = semver.minVersion(pkg.engines.node)?.version as string;
  assert.equal(semver.major(oldest), 20, 'labelwise supports Node 20');
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } }>;
  };
  const declaringNewer = Object.entries(lock.packages)
    .filter(
      ([path, p]) =>
        path !== '' && p.engines?.node !== undefined && !semver.satisfies(oldest, p.engines.node),
    )
    .map(([path]) => path.replace(/^.*node_modules\//, ''))
    .sort();
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Node.js support'));
  const named = [...section.slice(0, section.indexOf('\n## ', 3) >>> 0).matchAll(/^- `([^`]+)`/gm)]
    .map((m) => m[1] as string)
    .sort();
  assert.deepEqual(named, declaringNewer);
});

test('this run is on a Node the package supports', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    engines: { node: string };
  };
  assert.ok(semver.satisfies(process.versions.node, pkg.engines.node), process.versions.node);
});

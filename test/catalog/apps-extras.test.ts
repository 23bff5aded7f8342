// The golden gate sees every file under apps/: a manifest the render did not produce, hidden in
// a new folder, a dotfile or a subfolder, is a difference for `catalog check`, `build` and `diff`
// (`kubectl apply -R -f apps/` would apply each of them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RepoDiff } from '../../src/repo/index.js';
import { skipWithout } from '../support/capabilities.js';
import { cliIn as cli, git as gitAt } from '../support/git.js';
import { EXAMPLE_APPS, EXAMPLE_CATALOG } from './helpers.js';

const BINDING = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: everyone-admin
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
  - kind: Group
    name: system:authenticated
    apiGroup: rbac.authorization.k8s.io
`;

const HIDING = ['evil/crb.yaml', 'plex/.crb.yaml', 'plex/sub/crb.yaml'];

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-apps-'));
  cpSync(EXAMPLE_CATALOG, join(dir, 'catalog'), { recursive: true });
  cpSync(EXAMPLE_APPS, join(dir, 'apps'), { recursive: true });
  return dir;
}

function hide(dir: string, path: string): void {
  mkdirSync(join(dir, 'apps', path, '..'), { recursive: true });
  writeFileSync(join(dir, 'apps', path), BINDING);
}

for (const path of HIDING) {
  test(`catalog check --apps: apps/${path} is an extra file (exit 2)`, async (t) => {
    const dir = workspace();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    assert.equal((await cli(dir, 'catalog', 'check', 'catalog', '--apps', 'apps')).code, 0);
    hide(dir, path);
    const r = await cli(dir, 'catalog', 'check', 'catalog', '--apps', 'apps', '--json');
    assert.equal(r.code, 2, r.out + r.err);
    const report = JSON.parse(r.out) as { diffs: { path: string; change: string }[] };
    assert.deepEqual(
      report.diffs.map((d) => `${d.change} ${d.path}`),
      [`removed ${path}`],
    );
  });
}

test('build and diff report every file hidden under apps/', async (t) => {
  if (skipWithout(t, 'git')) return;
  const dir = workspace();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const git = (...args: string[]): string => gitAt(dir, ...args);
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'one');
  for (const path of HIDING) hide(dir, path);
  git('add', '-A');
  git('commit', '-q', '-m', 'two');
  const out = join(dir, '..', `${join(dir).split('/').pop() as string}-out`);
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const built = await cli(dir, 'build', '.', '--out', out, '--json');
  assert.equal(built.code, 1, built.err);
  const report = JSON.parse(built.out) as { diagnostics: { code: string; object?: string }[] };
  const golden = report.diagnostics
    .filter((d) => d.code === 'CATALOG_GOLDEN_DIFF')
    .map((d) => d.object);
  assert.deepEqual(golden.sort(), [...HIDING].sort());
  const diffed = await cli(dir, 'diff', '.', '--from', 'HEAD~1', '--to', 'HEAD', '--json');
  assert.equal(diffed.code, 1, diffed.err);
  const diff = JSON.parse(diffed.out) as RepoDiff;
  const introduced = diff.introduced
    .filter((d) => d.code === 'CATALOG_GOLDEN_DIFF')
    .map((d) => d.object);
  assert.deepEqual(introduced.sort(), [...HIDING].sort());
});

/**
 * `labelwise diff` on a git repository made in the test: one commit with the example repository,
 * a second that touches every module. The diff must name exactly the changes made, in every
 * format, and never touch the work tree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { MARKDOWN_LIMIT } from '../../src/repo/index.js';
import type { RepoDiff } from '../../src/repo/index.js';
import { skipWithout } from '../support/capabilities.js';
import { sarifValidator } from '../support/sarif.js';
import { git } from '../support/git.js';
import { editFile } from '../support/temp.js';

const HOMELAB = join(import.meta.dirname, '..', '..', 'examples', 'homelab');

/** A checkout with two commits; the second touches the fleet, catalog, policy and Compose. */
async function withHistory(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'labelwise-diff-'));
  try {
    await cp(HOMELAB, dir, { recursive: true });
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'homelab');
    await editFile(
      join(dir, 'fleet', 'layers', 'base', 'accounts.yaml'),
      'mode: "0644"',
      'mode: "0640"',
    );
    await editFile(
      join(dir, 'catalog', 'blog.yaml'),
      'nginx-unprivileged:1.27.0',
      'nginx-unprivileged:1.27.1',
    );
    await editFile(
      join(dir, 'policy', 'books-policy.yaml'),
      '- name: traffic',
      '- name: traffic-v2',
    );
    await editFile(
      join(dir, 'compose', 'compose.yaml'),
      'anchord.role: authentik-server',
      'anchord.role: ldap-outpost',
    );
    git(dir, 'commit', '-q', '-am', 'touch every module');
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function diff(cwd: string, ...args: string[]) {
  const io = memoryIO({ cwd });
  const code = await run(['diff', '.', ...args], io);
  return { code, out: io.out, err: io.err };
}

test('diff names exactly the changes made, module by module (JSON)', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withHistory(async (dir) => {
    const before = git(dir, 'status', '--porcelain');
    const result = await diff(dir, '--from', 'HEAD~1', '--to', 'HEAD', '--json');
    assert.ok(result.code === 2 || result.code === 1, result.err);
    const report = JSON.parse(result.out) as RepoDiff;
    assert.equal(report.changed, true);
    const fields = report.fleet.changes.flatMap((h) =>
      h.fields.map((f) => `${h.host} ${f.resource} ${f.field} ${f.before} ${f.after}`),
    );
    assert.ok(
      fields.length > 0 && fields.every((f) => / mode "0644" "0640"$/.test(f)),
      fields.join('\n'),
    );
    assert.deepEqual(
      report.catalog.changes.map((m) => `${m.change} ${m.file}`),
      ['changed apps/blog/deployment-blog.yaml'],
    );
    assert.match(report.catalog.changes[0]?.patch ?? '', /^-.*1\.27\.0$/m);
    assert.match(report.catalog.changes[0]?.patch ?? '', /^\+.*1\.27\.1$/m);
    assert.equal(report.policy.compiledChanged, true);
    assert.deepEqual(
      report.anchor.changes.map((c) => `${c.change} ${c.backend}: ${c.before} -> ${c.after}`),
      ['moved authentik_server: anchord-authentik -> anchord-ldap'],
    );
    assert.equal(git(dir, 'status', '--porcelain'), before, 'the work tree is untouched');
    assert.deepEqual(
      (await readdir(dir)).filter((n) => n.startsWith('.labelwise')),
      [],
    );
  });
});

test('no change: exit 0 and says so; worktree is the default --to', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withHistory(async (dir) => {
    const same = await diff(dir, '--from', 'HEAD');
    assert.equal(same.code, 0, same.err);
    assert.match(same.out, /No change to what reaches what/);
    await editFile(join(dir, 'catalog', 'blog.yaml'), '1.27.1', '1.27.2');
    const dirty = await diff(dir, '--from', 'HEAD');
    assert.equal(dirty.code, 2);
    assert.match(dirty.out, /~ apps\/blog\/deployment-blog\.yaml/);
  });
});

test('markdown fits a pull-request comment and collapses long sections', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withHistory(async (dir) => {
    const result = await diff(dir, '--from', 'HEAD~1', '--to', 'HEAD', '--format', 'markdown');
    assert.ok(result.out.length <= MARKDOWN_LIMIT);
    assert.match(result.out, /^### labelwise diff/);
    assert.match(result.out, /```diff\n/);
    assert.match(result.out, /Anchors: 1 claim\(s\) changed/);
  });
});

test('text and SARIF formats; bad revisions are clear errors', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withHistory(async (dir) => {
    const text = await diff(dir, '--from', 'HEAD~1', '--to', 'HEAD');
    assert.match(text.out, /^fleet: \d+ host\(s\) changed$/m);
    assert.match(text.out, /mode "0644" -> "0640"/);
    const sarif = await diff(dir, '--from', 'HEAD~1', '--to', 'HEAD', '--format', 'sarif');
    const log = JSON.parse(sarif.out) as { version: string; runs: unknown[] };
    assert.equal(log.version, '2.1.0');
    const validate = sarifValidator();
    assert.ok(validate(log), JSON.stringify(validate.errors?.slice(0, 2)));
    for (const revision of ['nope', '--output=/tmp/x', 'HEAD\n'])
      assert.equal((await diff(dir, '--from', revision)).code, 1, revision);
  });
});

test('diff --out writes the build of --to with the change as the report first section', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withHistory(async (dir) => {
    const out = join(dir, '..', `${join(dir).split('/').pop()}-out`);
    try {
      const result = await diff(dir, '--from', 'HEAD~1', '--to', 'HEAD', '--out', out);
      assert.ok(result.code === 2 || result.code === 1, result.err);
      const html = await readFile(join(out, 'report.html'), 'utf8');
      assert.match(html, /id="s-diff"/);
      assert.match(html, /What this change does/);
      const saved = JSON.parse(await readFile(join(out, 'diff.json'), 'utf8')) as RepoDiff;
      assert.equal(saved.changed, true);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});

test('a change the API server would refuse (shrinking a claim) is an apply-time hazard and exit 1', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withHistory(async (dir) => {
    await editFile(join(dir, 'catalog', 'plex.yaml'), 'size: 20Gi', 'size: 10Gi');
    const result = await diff(dir, '--from', 'HEAD', '--json');
    assert.equal(result.code, 1, result.err);
    const report = JSON.parse(result.out) as RepoDiff;
    const hazards = report.catalog.hazards.map((d) => `${d.code} ${d.severity} ${d.path}`);
    assert.deepEqual(hazards, ['CATALOG_IMMUTABLE_FIELD error spec.resources.requests.storage']);
    // The wording is catalog check's own: both report through one builder.
    assert.equal(
      report.catalog.hazards[0]?.message,
      'shrinks the claim (20Gi → 10Gi); the API server only lets a claim grow; applying this render would fail',
    );
    assert.match(
      report.catalog.hazards[0]?.hint ?? '',
      /^migrate the data, then set availability\.acknowledgeStorageMigration: true in the service's definition/,
    );
  });
});

test('an acknowledged storage migration is a warning in the diff, as in catalog check', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withHistory(async (dir) => {
    await editFile(join(dir, 'catalog', 'plex.yaml'), 'size: 20Gi', 'size: 10Gi');
    await editFile(
      join(dir, 'catalog', 'plex.yaml'),
      'auth:\n',
      'availability: { acknowledgeStorageMigration: true }\nauth:\n',
    );
    const result = await diff(dir, '--from', 'HEAD', '--json');
    const report = JSON.parse(result.out) as RepoDiff;
    const hazard = report.catalog.hazards.find((d) => d.path === 'spec.resources.requests.storage');
    assert.equal(hazard?.severity, 'warning', result.err);
    assert.equal(
      hazard?.message,
      'shrinks the claim (20Gi → 10Gi); the API server only lets a claim grow; acknowledged: the object is rendered for recreation (availability.acknowledgeStorageMigration)',
    );
    assert.equal(hazard?.hint, undefined);
  });
});

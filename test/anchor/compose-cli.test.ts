// `labelwise anchor check` at the edges: input-derived text is escaped before it reaches the
// terminal, files are read through the repository reader, and the check's entry point never
// loads the Docker client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/anchor.js';
import { memoryIO } from '../../src/cli/io.js';

function inTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-check-cli-'));
  return body(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

test('control characters in service names, scopes and labels are escaped in the text output', () =>
  inTempDir(async (dir) => {
    writeFileSync(
      join(dir, 'compose.yaml'),
      [
        'services:',
        '  "evil\\e[2J":',
        '    environment: { ANCHORD_LABEL_SELECTOR: "role=\\e]0;pwned\\a" }',
        '  web:',
        '    labels: { role: x, anchord.expose: "tcp/80\\e[31m" }',
        '',
      ].join('\n'),
    );
    const io = memoryIO({ cwd: dir });
    assert.equal(await run(['check', 'compose.yaml'], io), 1);
    // eslint-disable-next-line no-control-regex -- the point: no raw control character
    assert.doesNotMatch(io.out, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    assert.match(io.out, /evil\\x1b\[2J/);
    assert.match(io.out, /scope: role=\\x1b\]0;pwned\\x07/);
    assert.match(io.out, /error ANCHOR_INVALID_EXPOSE \[service web\]: .*\\x1b\[31m/);
  }));

test('--json: the base diagnostics shape, with counts', () =>
  inTempDir(async (dir) => {
    writeFileSync(
      join(dir, 'compose.yaml'),
      'services:\n  a:\n    environment: { ANCHORD_LABEL_SELECTOR: "r=1" }\n  w:\n    labels: { anchord.expose: tcp/80, x: "${NOPE}" }\n',
    );
    const io = memoryIO({ cwd: dir });
    assert.equal(await run(['check', 'compose.yaml', '--json'], io), 0);
    const out = JSON.parse(io.out) as Record<string, unknown>;
    assert.deepEqual(Object.keys(out), [
      'project',
      'anchors',
      'overlaps',
      'diagnostics',
      'errors',
      'warnings',
    ]);
    assert.deepEqual([out.errors, out.warnings], [0, 2]);
    assert.deepEqual(
      (out.diagnostics as { code: string }[]).map((d) => d.code),
      // The one order: by file, line, column.
      ['ANCHOR_UNCLAIMED_BACKEND', 'ANCHOR_COMPOSE_VARIABLE'],
    );
  }));

test('--profile checks one combination; COMPOSE_PROJECT_NAME from the shell names the project', () =>
  inTempDir(async (dir) => {
    writeFileSync(
      join(dir, 'compose.yaml'),
      'services:\n  a:\n    profiles: [edge]\n    environment: { ANCHORD_PROJECT: "${COMPOSE_PROJECT_NAME}" }\n  b:\n    profiles: [other]\n    environment: { ANCHORD_PROJECT: shop }\n',
    );
    // Without --profile every profile is checked, and the anchor says which profile it needs.
    const all = memoryIO({ cwd: dir, env: { COMPOSE_PROJECT_NAME: 'shop' } });
    assert.equal(await run(['check', 'compose.yaml', '--json'], all), 1);
    const every = JSON.parse(all.out) as {
      anchors: { service: string; profiles?: string[] }[];
      overlaps: { a: string; b: string; profiles?: string[] }[];
    };
    assert.deepEqual(
      every.anchors.map((a) => [a.service, a.profiles]),
      [
        ['a', ['edge']],
        ['b', ['other']],
      ],
    );
    assert.deepEqual(
      every.overlaps.map((o) => [o.a, o.b, o.profiles]),
      [['a', 'b', ['edge', 'other']]],
    );
    const off = memoryIO({ cwd: dir, env: { COMPOSE_PROJECT_NAME: 'shop' } });
    assert.equal(await run(['check', 'compose.yaml', '--profile', 'none', '--json'], off), 0);
    assert.deepEqual(JSON.parse(off.out).anchors, []);
    const on = memoryIO({ cwd: dir, env: { COMPOSE_PROJECT_NAME: 'shop' } });
    assert.equal(await run(['check', 'compose.yaml', '--profile', 'edge', '--json'], on), 0);
    const report = JSON.parse(on.out) as { project: string; anchors: { scope: string }[] };
    assert.equal(report.project, 'shop');
    assert.equal(report.anchors[0]?.scope, 'com.docker.compose.project=shop');
    const bad = memoryIO({ cwd: dir, env: { COMPOSE_PROJECT_NAME: 'Shop.Front' } });
    assert.equal(await run(['check', 'compose.yaml', '--json'], bad), 1);
    assert.equal(JSON.parse(bad.out).diagnostics[0].code, 'ANCHOR_INVALID_PROJECT_NAME');
  }));

test('an env_file that is a link leaving the repository is skipped with a warning', () =>
  inTempDir(async (dir) => {
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    writeFileSync(join(dir, 'secret.env'), 'ANCHORD_LABEL_SELECTOR=role=x\n');
    symlinkSync(join(dir, 'secret.env'), join(repo, 'anchor.env'));
    writeFileSync(
      join(repo, 'compose.yaml'),
      'services:\n  a:\n    command: network-anchor\n    env_file: anchor.env\n',
    );
    const io = memoryIO({ cwd: repo });
    assert.equal(await run(['check', 'compose.yaml', '--json'], io), 1);
    const report = JSON.parse(io.out) as { diagnostics: { code: string; severity: string }[] };
    assert.deepEqual(
      report.diagnostics.map((d) => [d.severity, d.code]),
      [
        ['warning', 'READ_SYMLINK_OUTSIDE'],
        // The anchor has no scope: the file that would give one was not read.
        ['error', 'ANCHOR_INVALID_CONFIG'],
      ],
    );
  }));

test('a named file that is missing exits 3 with ANCHOR_COMPOSE_UNREADABLE', () =>
  inTempDir(async (dir) => {
    const { run: main } = await import('../../src/cli/main.js');
    const io = memoryIO({ cwd: dir });
    assert.equal(await main(['anchor', 'check', 'nope.yaml'], io), 3);
    assert.match(io.err, /ANCHOR_COMPOSE_UNREADABLE/);
  }));

test('the static check and the anchor index never load dockerode', async () => {
  const index = await import('../../src/anchor/index.js');
  const cache = createRequire(import.meta.url).cache;
  const loaded = (): string[] =>
    Object.keys(cache).filter((p) => p.includes('/node_modules/dockerode/'));
  assert.deepEqual(loaded(), []);
  await inTempDir(async (dir) => {
    writeFileSync(join(dir, 'compose.yaml'), 'services: {}\n');
    assert.equal(await run(['check', 'compose.yaml'], memoryIO({ cwd: dir })), 0);
  });
  assert.equal(typeof index.checkComposeProject, 'function');
  assert.deepEqual(loaded(), []);
  // The check itself is sound: the daemon's path does load it.
  await import('../../src/anchor/run.js');
  assert.ok(loaded().length > 0, 'dockerode is found in the cache once the daemon is imported');
});

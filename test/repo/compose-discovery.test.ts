/**
 * Which Compose files `labelwise build` reads as one project: what `docker compose` with no `-f`
 * reads (compose-go's default and override file names, recorded as data), alternative stacks as
 * projects of their own or left unread with a note, and the projects labelwise.yaml lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { projectsInFolder } from '../../src/anchor/io/compose-files.js';
import type { AnchorClaims } from '../../src/anchor/index.js';
import { runBuild } from '../../src/repo/index.js';
import { withTempDir } from '../support/temp.js';

interface DefaultFilesCase {
  readonly name: string;
  readonly folder: string[];
  readonly read: string[];
  readonly notRead: string[];
}

const CASES = (
  parse(
    readFileSync(
      join(import.meta.dirname, '..', 'anchor', 'conformance', 'compose', 'default-files.yaml'),
      'utf8',
    ),
  ) as { cases: DefaultFilesCase[] }
).cases;

for (const c of CASES)
  test(`compose-go default files: ${c.name}`, () => {
    const found = projectsInFolder(c.folder);
    assert.deepEqual(found.projects, c.read.length === 0 ? [] : [c.read]);
    assert.deepEqual(
      found.notRead.map((n) => n.file),
      c.notRead,
    );
  });

async function writeTree(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

const BASE = `services:
  anchor:
    image: labelwise/anchor:0.1.0
    command: ["network-anchor"]
    environment: { ANCHORD_EXT_NETWORK: dmz, ANCHORD_LABEL_SELECTOR: anchord.role=web }
  web: { image: web:1, labels: { anchord.role: web, anchord.expose: "tcp/80" } }
`;
/** A stack meant for `-f docker-compose.test.yml` alone: merged with BASE, port 80 clashes. */
const TEST_STACK = `services:
  web-test: { image: web:1, labels: { anchord.role: web, anchord.expose: "tcp/80" } }
`;

function claimsOf(build: Awaited<ReturnType<typeof runBuild>>): AnchorClaims {
  return build.runs.find((r) => r.module === 'anchor')?.result.data as AnchorClaims;
}

test('an alternative stack beside compose.yaml is not merged into it: a note, no error', async () => {
  await withTempDir('compose-alt', async (dir) => {
    await writeTree(dir, { 'compose.yaml': BASE, 'docker-compose.test.yml': TEST_STACK });
    const build = await runBuild({ repo: dir, name: 'repo' });
    assert.equal(build.report.ok, true, JSON.stringify(build.report.diagnostics));
    const claims = claimsOf(build);
    assert.deepEqual(
      claims.projects.map((p) => p.files),
      [['compose.yaml']],
    );
    assert.deepEqual(claims.notRead, [
      { file: 'docker-compose.test.yml', project: ['compose.yaml'] },
    ]);
  });
});

test('eight stacks side by side at a repository root are eight projects', async () => {
  await withTempDir('compose-eight', async (dir) => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const files: Record<string, string> = {};
    for (const n of names) files[`docker-compose.${n}.yml`] = BASE.replace('web:', `web-${n}:`);
    await writeTree(dir, files);
    const build = await runBuild({ repo: dir, name: 'repo' });
    // Merged into one project, the eight backends of tcp/80 would clash; apart, none is wrong.
    assert.equal(build.report.ok, true, JSON.stringify(build.report.diagnostics));
    assert.deepEqual(
      claimsOf(build).projects.map((p) => p.files),
      names.map((n) => [`docker-compose.${n}.yml`]),
    );
  });
});

test('labelwise.yaml lists projects with their -f files and names', async () => {
  await withTempDir('compose-listed', async (dir) => {
    await writeTree(dir, {
      'labelwise.yaml':
        'compose:\n  projects:\n    - files: [compose.yaml, docker-compose.test.yml]\n      name: ci\n    - files: [stacks/media/compose.yaml]\n',
      'compose.yaml': BASE,
      'docker-compose.test.yml': TEST_STACK,
      'stacks/media/compose.yaml': BASE,
    });
    const build = await runBuild({ repo: dir, name: 'repo' });
    const claims = claimsOf(build);
    assert.deepEqual(
      claims.projects.map((p) => [p.project, p.files]),
      [
        ['ci', ['compose.yaml', 'docker-compose.test.yml']],
        ['media', ['stacks/media/compose.yaml']],
      ],
    );
    // Both files together, as listed: the anchor of compose.yaml claims both backends, and
    // their ports clash (which is what merging them unasked would have reported).
    assert.ok(build.report.diagnostics.some((d) => d.code === 'ANCHOR_PORT_CONFLICT'));
    assert.deepEqual(
      claims.projects[0]?.anchors[0]?.backends.map((b) => b.backend),
      ['web', 'web-test'],
    );
  });
});

test('labelwise.yaml compose.projects that is not a list of files is BUILD_CONFIG_INVALID', async () => {
  await withTempDir('compose-bad', async (dir) => {
    await writeTree(dir, {
      'labelwise.yaml': 'compose:\n  projects:\n    - files: [../outside.yaml]\n    - web\n',
      'compose.yaml': BASE,
    });
    const build = await runBuild({ repo: dir, name: 'repo' });
    const bad = build.report.diagnostics.filter((d) => d.code === 'BUILD_CONFIG_INVALID');
    assert.deepEqual(
      bad.map((d) => [d.file, d.line, d.path]),
      [
        ['labelwise.yaml', 3, 'compose.projects[0].files'],
        ['labelwise.yaml', 4, 'compose.projects[1]'],
      ],
    );
  });
});

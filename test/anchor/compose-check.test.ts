import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAnchorStage, checkFiles, matchesWitness } from './compose-helpers.js';
import { run } from '../../src/cli/anchor.js';
import { memoryIO } from '../../src/cli/io.js';

function check(
  files: Record<string, string>,
  project?: string,
  environment: Record<string, string> = {},
) {
  return checkFiles(files, { project, environment });
}

const TWO_ANCHORS = `
name: ix-authentik
services:
  anchor-a:
    image: anchor
    environment:
      ANCHORD_LABEL_SELECTOR: role=A
  anchor-b:
    image: anchor
    environment:
      - ANCHORD_LABEL_SELECTOR=role=B
  a:
    labels: { role: A, anchord.expose: "tcp/80" }
  b:
    labels:
      - role=B
      - anchord.expose=tcp/80:8080,udp/53
  c:
    labels: { role: C, anchord.expose: "tcp/80" }
`;

test('two anchors with disjoint selectors: claims, entries, and an unclaimed-backend warning', () => {
  const report = check({ 'compose.yaml': TWO_ANCHORS });
  assert.equal(report.project, 'ix-authentik');
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.overlaps, []);
  assert.deepEqual(report.anchors, [
    {
      service: 'anchor-a',
      scope: 'role=A',
      backends: ['a'],
      entries: [{ family: 'ipv4', proto: 'tcp', port: 80, backend: 'a', backendPort: 80 }],
    },
    {
      service: 'anchor-b',
      scope: 'role=B',
      backends: ['b'],
      entries: [
        { family: 'ipv4', proto: 'tcp', port: 80, backend: 'b', backendPort: 8080 },
        { family: 'ipv4', proto: 'udp', port: 53, backend: 'b', backendPort: 53 },
      ],
    },
  ]);
  assert.deepEqual(
    report.warnings.map((w) => [w.code, w.service, w.file, w.line]),
    [['ANCHOR_UNCLAIMED_BACKEND', 'c', 'compose.yaml', 19]],
  );
});

test('a project anchor and a selector anchor overlap: proved with a witness, even with no shared backend', () => {
  const report = check({
    'compose.yaml': `
services:
  legacy:
    command: network-anchor
    environment: { ANCHORD_PROJECT: ix-authentik }
  ldap:
    command: ["network-anchor", "--verbose"]
    environment: { ANCHORD_LABEL_SELECTOR: anchord.role=ldap-outpost }
`,
  });
  assert.equal(report.overlaps.length, 1);
  const [found] = report.overlaps;
  assert.equal(found?.a, 'ldap');
  assert.equal(found?.b, 'legacy');
  assert.deepEqual(
    { ...found?.witness },
    {
      'anchord.expose': 'tcp/80',
      'anchord.role': 'ldap-outpost',
      'com.docker.compose.project': 'ix-authentik',
    },
  );
  assert.ok(matchesWitness('anchord.role=ldap-outpost', found?.witness ?? {}));
  const error = report.errors.find((e) => e.code === 'ANCHOR_SCOPE_OVERLAP');
  assert.ok(error !== undefined);
  assert.match(error.message, /would be claimed by both/);
  assert.equal(error.line, 5);
});

test('two backends of one anchor on the same port are an error', () => {
  const report = check({
    'compose.yaml': `
services:
  anchor: { environment: { ANCHORD_LABEL_SELECTOR: "tier=web" } }
  one: { labels: { tier: web, anchord.expose: "tcp/443" } }
  two: { labels: { tier: web, anchord.expose: "tcp/443:8443" } }
`,
  });
  assert.deepEqual(
    report.errors.map((e) => [e.code, e.service, e.line]),
    [['ANCHOR_PORT_CONFLICT', 'two', 5]],
  );
});

test('invalid selectors and expose labels are located errors', () => {
  const report = check({
    'compose.yaml': `services:
  anchor:
    environment:
      ANCHORD_LABEL_SELECTOR: "a=1,a=2"
  anchor2:
    command: network-anchor
  web:
    labels:
      anchord.expose: "tcp/80;flush ruleset"
`,
  });
  assert.deepEqual(
    report.errors.map((e) => [e.code, e.service, e.line]),
    [
      ['SELECTOR_EQUALITY_CONFLICT', 'anchor', 4],
      ['ANCHOR_INVALID_CONFIG', 'anchor2', 5],
      ['ANCHOR_INVALID_EXPOSE', 'web', 9],
    ],
  );
  assert.match(
    report.errors[0]?.message ?? '',
    /duplicate key "a" with conflicting values "1" and "2"/,
  );
});

test('files merge like Compose: labels and environment per key, override file last; project name rules', () => {
  const report = check(
    {
      'compose.yaml': `
name: base
services:
  anchor: { environment: { ANCHORD_LABEL_SELECTOR: role=x } }
  web: { labels: { role: y, anchord.expose: tcp/80 } }
`,
      'compose.override.yaml': `
services:
  web: { labels: { role: x } }
`,
    },
    'flagged',
  );
  assert.equal(report.project, 'flagged');
  assert.deepEqual(report.anchors[0]?.backends, ['web']);
  assert.equal(check({ 'compose.yaml': 'services: {}\n' }).project, 'mystack');
});

test('YAML merge keys and variable interpolation', () => {
  const report = check(
    {
      'compose.yaml': `
x-anchor: &anchor
  command: network-anchor
  environment: { ANCHORD_LABEL_SELECTOR: "role=\${ROLE:-db}" }
services:
  anchor:
    <<: *anchor
  db: { labels: { role: db, anchord.expose: "tcp/\${PORT}" } }
`,
    },
    undefined,
    { PORT: '5432' },
  );
  assert.deepEqual(report.errors, []);
  assert.deepEqual(
    report.anchors[0]?.entries.map((e) => e.port),
    [5432],
  );
});

test('YAML syntax errors are located errors, not crashes', () => {
  const report = check({ 'compose.yaml': 'services:\n  a: [\n' });
  assert.equal(report.errors[0]?.code, 'ANCHOR_COMPOSE_YAML');
  assert.equal(report.errors[0]?.file, 'compose.yaml');
});

test('expose.v6 auto mirrors entries only onto IPv6-enabled networks', () => {
  const report = check({
    'compose.yaml': `
services:
  anchor: { environment: { ANCHORD_LABEL_SELECTOR: role=x } }
  web: { labels: { role: x, anchord.expose: tcp/80 }, networks: [v6net] }
networks:
  v6net: { enable_ipv6: true }
`,
  });
  assert.deepEqual(
    report.anchors[0]?.entries.map((e) => e.family),
    ['ipv4', 'ipv6'],
  );
});

test('CLI: anchor check --json on the homelab example exits 0 with no errors', async () => {
  const io = memoryIO({ cwd: process.cwd() });
  const code = await run(['check', 'examples/homelab/compose/compose.yaml', '--json'], io);
  assert.equal(code, 0, io.err);
  const report = JSON.parse(io.out) as {
    project: string;
    anchors: { service: string }[];
    diagnostics: unknown[];
    errors: number;
    warnings: number;
  };
  assert.equal(report.project, 'ix-authentik');
  assert.deepEqual(
    report.anchors.map((a) => a.service),
    ['anchord-authentik', 'anchord-frigate', 'anchord-ldap'],
  );
  assert.deepEqual([report.diagnostics, report.errors, report.warnings], [[], 0, 0]);
});

test('CLI: overlap exits 1 with a located text error; unreadable file exits 3', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-check-'));
  try {
    writeFileSync(
      join(dir, 'compose.yaml'),
      'services:\n  a: { environment: { ANCHORD_PROJECT: p } }\n  b: { environment: { ANCHORD_PROJECT: p } }\n',
    );
    const io = memoryIO({ cwd: dir });
    assert.equal(await run(['check', 'compose.yaml'], io), 1);
    assert.match(
      io.out,
      /compose\.yaml:3:\d+: error ANCHOR_SCOPE_OVERLAP \[service b\]: .*com\.docker\.compose\.project=p/,
    );
    const { run: main } = await import('../../src/cli/main.js');
    const io2 = memoryIO({ cwd: dir });
    assert.equal(await main(['anchor', 'check', 'missing.yaml'], io2), 3);
    assert.match(io2.err, /ANCHOR_COMPOSE_UNREADABLE/);
    const io3 = memoryIO({ cwd: dir });
    assert.equal(await run(['check', '--help'], io3), 0);
    assert.match(io3.out, /Examples:/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('build stage: diagnostics, anchors.json and the claim table for the homelab example', async () => {
  const result = await buildAnchorStage('examples/homelab', { root: 'examples/homelab' });
  assert.deepEqual(result.diagnostics, []);
  assert.deepEqual(Object.keys(result.outputs), ['anchors.json']);
  assert.deepEqual(result.counts, {
    projects: 1,
    anchors: 3,
    backends: 1,
    entries: 1,
    overlaps: 0,
  });
  const claims = result.data as {
    projects: {
      project: string;
      files: string[];
      anchors: { anchor: string; backends: { backend: string }[] }[];
    }[];
  };
  assert.equal(claims.projects[0]?.project, 'ix-authentik');
  assert.deepEqual(claims.projects[0]?.files, ['compose/compose.yaml']);
  assert.deepEqual(
    claims.projects[0]?.anchors[0]?.backends.map((b) => b.backend),
    ['authentik_server'],
  );
});

test('build stage: errors become diagnostics with repository-relative files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-stage-'));
  try {
    writeFileSync(
      join(dir, 'compose.yaml'),
      'services:\n  web: { labels: { anchord.expose: "http/80" } }\n',
    );
    const result = await buildAnchorStage(dir);
    assert.deepEqual(
      result.diagnostics.map((f) => [f.module, f.severity, f.code, f.file, f.line]),
      [['anchor', 'error', 'ANCHOR_INVALID_EXPOSE', 'compose.yaml', 2]],
    );
    assert.match(result.diagnostics[0]?.object ?? '', /^service labelwise-stage-[a-z0-9]+\/web$/i);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('extends of a missing file is a read error', () => {
  const report = check({
    'compose.yaml': 'services:\n  web:\n    extends: { file: base.yaml, service: web }\n',
  });
  assert.deepEqual(
    report.diagnostics.map((w) => [w.severity, w.code, w.file, w.line]),
    [['error', 'READ_UNREADABLE', 'base.yaml', undefined]],
  );
});

test('merge-key bombs finish quickly with a located error (expansion is bounded)', () => {
  const levels = ['l0: &l0 { x: "1" }'];
  for (let i = 1; i < 30; i++)
    levels.push(
      `l${i}: &l${i} { <<: [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}] }`,
    );
  const text = `${levels.join('\n')}\nservices:\n  web:\n    labels:\n      <<: *l29\n      anchord.expose: tcp/80\n`;
  const report = check({ 'compose.yaml': text });
  assert.deepEqual(
    report.errors.map((e) => [e.code, e.file]),
    [['ANCHOR_COMPOSE_YAML', 'compose.yaml']],
  );
  assert.match(report.errors[0]?.message ?? '', /billion laughs/);
});

test('a scope that reads like another operator is warned about and printed quoted', () => {
  // anchord reads `role!=ldap` as the key `role!`; so does the anchor, so it claims by that
  // key, and the report must not read as "role is not ldap".
  const report = check({
    'compose.yaml': `services:
  anchor:
    environment:
      ANCHORD_LABEL_SELECTOR: role!=ldap
  ldap:
    labels: { role: ldap, anchord.expose: tcp/389 }
  other:
    labels: { "role!": ldap, anchord.expose: tcp/636 }
`,
  });
  assert.deepEqual(report.anchors[0]?.scope, '"role!"="ldap"');
  assert.deepEqual(report.anchors[0]?.backends, ['other']);
  const warning = report.warnings.find((w) => w.code === 'ANCHOR_SCOPE_MISLEADING');
  assert.deepEqual([warning?.file, warning?.line, warning?.service], ['compose.yaml', 4, 'anchor']);
  assert.match(warning?.message ?? '', /^ANCHORD_LABEL_SELECTOR: key "role!" ends in "!"/);
  assert.deepEqual(
    report.warnings.map((w) => [w.code, w.service]),
    [
      ['ANCHOR_SCOPE_MISLEADING', 'anchor'],
      ['ANCHOR_UNCLAIMED_BACKEND', 'ldap'],
    ],
  );
});

test('a legacy (version 1) Compose file is warned at its first service, not passed over', () => {
  // docker-compose 1.x reads this as two services; Compose v2 refuses it ("Additional property
  // web is not allowed"), and labelwise, which follows v2, reads no service from it.
  const legacy =
    '# v1\nx-note: {a: 1}\nweb:\n  image: nginx\n  labels: {anchord.expose: tcp/80}\ndb:\n  image: postgres\n';
  const report = check({ 'docker-compose.yml': legacy });
  assert.deepEqual(
    report.warnings.map((d) => `${d.code} ${d.file}:${d.line}`),
    ['ANCHOR_COMPOSE_LEGACY_FORMAT docker-compose.yml:3'],
  );
  assert.match(
    report.warnings[0]?.message ?? '',
    /"web" is a service in the legacy Compose format/,
  );
  assert.deepEqual(report.errors, []);
  // A fragment holding only top-level sections (an override with volumes) is not legacy.
  const fragment = check({ 'compose.yaml': 'volumes:\n  data: {}\nnetworks:\n  edge: {}\n' });
  assert.deepEqual(fragment.warnings, []);
  const current = check({ 'compose.yaml': 'services:\n  web:\n    image: nginx\n' });
  assert.deepEqual(current.warnings, []);
});

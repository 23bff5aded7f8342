// `labelwise anchor check`: every error kind points at the file and line to fix, across merged
// files; the scope an overlap is proved on is the one the daemon would use; one bad variable does
// not hide an anchor's claims or overlaps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkFiles, matchesWitness } from './compose-helpers.js';
import { run } from '../../src/cli/anchor.js';
import { memoryIO } from '../../src/cli/io.js';

function check(files: Record<string, string>, environment: Record<string, string> = {}) {
  return checkFiles(files, { environment, directoryName: 'stack' });
}

const BASE = `name: ix
services:
  legacy:
    command: network-anchor
    environment:
      ANCHORD_PROJECT: ix
  ldap:
    environment:
      ANCHORD_LABEL_SELECTOR: anchord.role=ldap
  broken:
    environment:
      ANCHORD_LABEL_SELECTOR: "role"
  web:
    labels:
      anchord.expose: tcp/80
  web2:
    labels:
      - anchord.expose=tcp/80:8080
  bad-expose:
    labels:
      anchord.expose: "tcp/80;flush ruleset"
`;

const OVERRIDE = `services:
  bad-v6:
    labels:
      anchord.expose: tcp/81
      anchord.expose.v6: "maybe"
  slow:
    environment:
      ANCHORD_LABEL_SELECTOR: anchord.role=slow
      ANCHORD_POLL_INTERVAL: soon
`;

test('CLI text: every error kind is printed as file:line:column: severity CODE [object], in the file that holds it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-check-lines-'));
  try {
    writeFileSync(join(dir, 'compose.yaml'), BASE);
    writeFileSync(join(dir, 'compose.override.yaml'), OVERRIDE);
    const io = memoryIO({ cwd: dir });
    assert.equal(await run(['check', 'compose.yaml', 'compose.override.yaml'], io), 1, io.err);
    const located = io.out
      .split('\n')
      .map((line) => /^(\S+:\d+):\d+: error ([A-Z0-9_]+)(?: \[[^\]]*\])?: (.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null);
    assert.deepEqual(
      located.map((m) => `${m[1]} ${m[2]}`),
      [
        'compose.override.yaml:5 ANCHOR_INVALID_EXPOSE_V6',
        'compose.override.yaml:8 ANCHOR_SCOPE_OVERLAP',
        'compose.override.yaml:9 ANCHOR_INVALID_CONFIG',
        'compose.yaml:6 ANCHOR_SCOPE_OVERLAP',
        'compose.yaml:12 SELECTOR_EQUALITY_MISSING_EQUALS',
        'compose.yaml:18 ANCHOR_PORT_CONFLICT',
        'compose.yaml:21 ANCHOR_INVALID_EXPOSE',
      ],
      io.out,
    );
    const message = (prefix: string): string =>
      located.find((m) => `${m[1]} ${m[2]}` === prefix)?.[3] ?? '';
    // Each message also says where the other party is.
    assert.match(
      message('compose.override.yaml:8 ANCHOR_SCOPE_OVERLAP'),
      /^anchors "legacy" \(com\.docker\.compose\.project=ix, compose\.yaml:6\) and "slow" \(anchord\.role=slow\) can claim the same container: a container labelled anchord\.expose=tcp\/80,anchord\.role=slow,com\.docker\.compose\.project=ix would be claimed by both$/,
    );
    assert.match(
      message('compose.yaml:6 ANCHOR_SCOPE_OVERLAP'),
      /^anchors "ldap" \(anchord\.role=ldap, compose\.yaml:9\) and "legacy"/,
    );
    assert.match(
      message('compose.yaml:18 ANCHOR_PORT_CONFLICT'),
      /^backends "web" \(compose\.yaml:15\) and "web2" of anchor "legacy" both expose tcp\/80$/,
    );
    assert.match(
      message('compose.override.yaml:5 ANCHOR_INVALID_EXPOSE_V6'),
      /^anchord\.expose\.v6: /,
    );
    assert.match(
      message('compose.override.yaml:9 ANCHOR_INVALID_CONFIG'),
      /^ANCHORD_POLL_INTERVAL: /,
    );
    assert.match(io.out, /\n7 error\(s\), 0 warning\(s\)\n$/);

    const json = memoryIO({ cwd: dir });
    assert.equal(await run(['check', 'compose.yaml', 'compose.override.yaml', '--json'], json), 1);
    const report = JSON.parse(json.out) as {
      diagnostics: { file: string; line?: number; column?: number }[];
      errors: number;
      warnings: number;
    };
    assert.equal(report.errors, 7);
    assert.equal(report.warnings, 0);
    assert.equal(report.diagnostics.length, 7);
    for (const error of report.diagnostics) {
      assert.equal(typeof error.line, 'number', JSON.stringify(error));
      assert.equal(typeof error.column, 'number', JSON.stringify(error));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an overlap points at the variable the scope really came from', () => {
  const report = check({
    'compose.yaml': `services:
  a:
    environment:
      ANCHORD_LABEL_SELECTOR: ""
      ANCHORD_PROJECT: p
  b:
    command: network-anchor
    environment:
      COMPOSE_PROJECT_NAME: p
`,
  });
  assert.deepEqual(
    report.errors.map((e) => [e.code, e.service, e.line]),
    [['ANCHOR_SCOPE_OVERLAP', 'b', 9]],
  );
  assert.match(
    report.errors[0]?.message ?? '',
    /"a" \(com\.docker\.compose\.project=p, compose\.yaml:5\)/,
  );
});

test('a wrong unrelated variable does not hide the anchor: its claims and overlaps are still checked', () => {
  const report = check({
    'compose.yaml': `services:
  a:
    environment:
      ANCHORD_LABEL_SELECTOR: role=x
  b:
    environment:
      ANCHORD_LABEL_SELECTOR: role=x
      ANCHORD_METRICS_ADDR: "nowhere"
  off:
    environment:
      ANCHORD_LABEL_SELECTOR: role=x
      ANCHORD_MODE: service-anchor
  web:
    labels: { role: x, anchord.expose: tcp/80 }
`,
  });
  assert.deepEqual(
    report.errors.map((e) => [e.code, e.service, e.line]),
    [
      ['ANCHOR_SCOPE_OVERLAP', 'b', 7],
      ['ANCHOR_INVALID_CONFIG', 'b', 8],
      ['ANCHOR_INVALID_CONFIG', 'off', 12],
    ],
  );
  // The unsupported mode is not a network anchor: it claims nothing and overlaps nothing.
  assert.deepEqual(
    report.anchors.map((a) => [a.service, a.backends]),
    [
      ['a', ['web']],
      ['b', ['web']],
    ],
  );
  assert.deepEqual(report.warnings, []);
});

test('a variable passed through without a value takes its value from the shell or .env', () => {
  const files = {
    'compose.yaml': `services:
  a:
    environment:
      - ANCHORD_LABEL_SELECTOR
  b:
    environment:
      ANCHORD_LABEL_SELECTOR:
  c:
    environment:
      constructor:
      ANCHORD_PROJECT: p
  web:
    labels: { role: x, anchord.expose: tcp/80 }
`,
  };
  const set = check(files, { ANCHORD_LABEL_SELECTOR: 'role=x' });
  assert.deepEqual(
    set.anchors.map((a) => [a.service, a.scope, a.backends]),
    [
      ['a', 'role=x', ['web']],
      ['b', 'role=x', ['web']],
      ['c', 'com.docker.compose.project=p', []],
    ],
  );
  // Unset where Compose runs: unset in the container too, so there is no scope.
  const unset = check(files);
  assert.deepEqual(
    unset.errors.map((e) => [e.code, e.service]),
    [
      ['ANCHOR_INVALID_CONFIG', 'a'],
      ['ANCHOR_INVALID_CONFIG', 'b'],
    ],
  );
});

test('a scope that pins anchord.expose to a value no backend can have overlaps nothing', () => {
  const report = check({
    'compose.yaml': `services:
  blank:
    environment:
      ANCHORD_LABEL_SELECTOR: "role=x,anchord.expose="
  invalid:
    environment:
      ANCHORD_LABEL_SELECTOR: "role=x,anchord.expose=http/80"
  pinned:
    environment:
      ANCHORD_LABEL_SELECTOR: "anchord.expose=tcp/443"
  wide:
    environment:
      ANCHORD_LABEL_SELECTOR: role=x
`,
  });
  assert.deepEqual(
    report.overlaps.map((o) => [o.a, o.b, { ...o.witness }]),
    [['pinned', 'wide', { 'anchord.expose': 'tcp/443', role: 'x' }]],
  );
  assert.ok(matchesWitness('anchord.expose=tcp/443', report.overlaps[0]?.witness ?? {}));
});

test("env_file is followed: the anchor's scope comes from its env file, located there", () => {
  const report = check({
    'compose.yaml': `services:
  anchor:
    command: network-anchor
    env_file: [anchor.env]
  web:
    labels: { role: x, anchord.expose: tcp/80 }
`,
    'anchor.env': '# the scope\nANCHORD_LABEL_SELECTOR=role\n',
  });
  // The bad selector is reported in the env file, at its line.
  assert.deepEqual(
    report.errors.map((e) => [e.code, e.service, e.file, e.line]),
    [['SELECTOR_EQUALITY_MISSING_EQUALS', 'anchor', 'anchor.env', 2]],
  );
  const fixed = check({
    'compose.yaml': `services:
  anchor:
    command: network-anchor
    env_file: [anchor.env]
  web:
    labels: { role: x, anchord.expose: tcp/80 }
`,
    'anchor.env': 'ANCHORD_LABEL_SELECTOR=role=x\n',
  });
  assert.deepEqual(fixed.errors, []);
  assert.deepEqual(fixed.anchors[0]?.backends, ['web']);
});

test('a missing env_file is an error at the Compose file, line and service unless required: false', () => {
  const missing = check({
    'compose.yaml':
      'services:\n  a:\n    image: x\n  b:\n    env_file:\n      - present.env\n      - nope.env\n',
    'present.env': 'A=1\n',
  });
  assert.deepEqual(
    missing.errors.map((e) => [e.code, e.file, e.line, e.service]),
    [['ANCHOR_COMPOSE_ENV_FILE', 'compose.yaml', 7, 'b']],
  );
  assert.match(
    missing.errors[0]?.message ?? '',
    /env_file "nope.env" of service "b" does not exist/,
  );
  const optional = check({
    'compose.yaml': 'services:\n  a:\n    env_file: [{ path: nope.env, required: false }]\n',
  });
  assert.deepEqual(optional.errors, []);
});

test('an unclaimed backend says when an anchor with an invalid scope may be the cause', () => {
  const report = check({
    'compose.yaml': `services:
  anchor:
    environment:
      ANCHORD_LABEL_SELECTOR: "role"
  web:
    labels: { role: x, anchord.expose: tcp/80 }
`,
  });
  assert.deepEqual(
    report.errors.map((e) => [e.code, e.line]),
    [['SELECTOR_EQUALITY_MISSING_EQUALS', 4]],
  );
  assert.deepEqual(
    report.warnings.map((w) => [w.code, w.line, w.message]),
    [
      [
        'ANCHOR_UNCLAIMED_BACKEND',
        6,
        'backend "web" has anchord.expose but no anchor in this project claims it ("anchor" has an invalid scope and claims nothing)',
      ],
    ],
  );
});

test('a .env line that cannot be read is located in .env; an unterminated quote ends the file', () => {
  const report = check({
    'compose.yaml': 'services:\n  a:\n    environment: { X: "${GOOD}" }\n',
    '.env': 'GOOD=1\nBAD="unterminated\n',
  });
  assert.deepEqual(
    report.errors.map((e) => [e.code, e.file, e.line]),
    [['ANCHOR_COMPOSE_ENV_FILE', '.env', 2]],
  );
});

test('a missing required variable in a fragment used by many services is one error, at the fragment', () => {
  const services = Array.from({ length: 5 }, (_, i) => `  s${i}: *base\n`).join('');
  const report = check({
    'compose.yaml': `x-base: &base\n  environment:\n    TOKEN: \${TOKEN:?set TOKEN}\nservices:\n${services}`,
  });
  assert.deepEqual(
    report.errors.map((e) => [e.code, e.line]),
    [['ANCHOR_COMPOSE_VARIABLE', 3]],
  );
});

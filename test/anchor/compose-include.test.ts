// `include:` through the anchor check: an included backend is claimed like any other, and what
// Compose would fetch or cannot read is a located error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFiles } from './compose-helpers.js';

const located = (report: ReturnType<typeof checkFiles>): unknown[] =>
  report.errors.map((e) => [e.code, e.file, e.line]);

test('a backend defined in an included file is claimed by the anchor of the including file', () => {
  const report = checkFiles(
    {
      'compose.yaml': `include:
  - path: backends/compose.yaml
services:
  anchor:
    image: labelwise/anchor
    environment: { ANCHORD_LABEL_SELECTOR: anchord.role=ldap }
`,
      'backends/compose.yaml': `services:
  outpost:
    image: goauthentik/ldap
    labels: { anchord.role: ldap, anchord.expose: "tcp/389:3389" }
`,
    },
    { composeFiles: ['compose.yaml'] },
  );
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.anchors[0]?.backends, ['outpost']);
  assert.deepEqual(report.anchors[0]?.entries, [
    { family: 'ipv4', proto: 'tcp', port: 389, backend: 'outpost', backendPort: 3389 },
  ]);
});

test('remote include and remote extends are refused where they are written', () => {
  const report = checkFiles(
    {
      'compose.yaml': `include:
  - oci://registry.example/stack:1
  - path: git@github.com:example/stack.git
services:
  web:
    extends:
      file: https://example.org/base.yaml
      service: web
`,
    },
    { composeFiles: ['compose.yaml'] },
  );
  assert.deepEqual(located(report), [
    ['ANCHOR_COMPOSE_UNSUPPORTED', 'compose.yaml', 2],
    ['ANCHOR_COMPOSE_UNSUPPORTED', 'compose.yaml', 3],
    ['ANCHOR_COMPOSE_UNSUPPORTED', 'compose.yaml', 7],
  ]);
  assert.match(report.errors[0]?.message ?? '', /remote include "oci:\/\/registry/);
  assert.match(report.errors[2]?.message ?? '', /remote extends "https:/);
});

test('an include cycle, a bad item and a missing env_file are located errors', () => {
  const report = checkFiles(
    {
      'compose.yaml': `include:
  - a.yaml
  - { path: b.yaml, env_file: missing.env }
  - { project_directory: . }
services: {}
`,
      'a.yaml': 'include: [compose.yaml]\nservices: { a: { image: x } }\n',
      'b.yaml': 'services: { b: { image: x } }\n',
    },
    { composeFiles: ['compose.yaml'] },
  );
  assert.deepEqual(located(report), [
    ['ANCHOR_COMPOSE_SHAPE', 'a.yaml', 1],
    ['ANCHOR_COMPOSE_ENV_FILE', 'compose.yaml', 3],
    ['ANCHOR_COMPOSE_SHAPE', 'compose.yaml', 4],
  ]);
  assert.match(
    report.errors[0]?.message ?? '',
    /include cycle: compose.yaml includes a.yaml includes compose.yaml/,
  );
});

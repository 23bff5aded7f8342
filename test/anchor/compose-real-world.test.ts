// The real-world Compose shapes issue 14 names, checked end to end: what the anchor check now
// reads in them (Sentry's aliases, the Compose specification's fragments, mailcow's .env
// project name, anchord's own example), each a regression of a false error or a missed claim.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkFiles,
  loadComposeProject,
  memoryFileSystem,
  projectSnapshot,
} from './compose-helpers.js';

test('regression: Sentry-style aliases as whole values give no false errors', () => {
  const services = Array.from(
    { length: 40 },
    (_, i) => `  worker-${i}:\n    <<: *sentry_defaults\n    environment: *sentry_env\n`,
  ).join('');
  const report = checkFiles({
    'compose.yaml': `x-sentry-env: &sentry_env
  SENTRY_CONF: /etc/sentry
  ANCHORD_LOG_LEVEL: info
x-labels: &web_labels
  anchord.role: sentry-web
  anchord.expose: tcp/443:9000
x-sentry-defaults: &sentry_defaults
  image: sentry-self-hosted-local
  restart: unless-stopped
services:
${services}  web:
    <<: *sentry_defaults
    labels: *web_labels
  anchor: &anchor
    image: labelwise/anchor
    environment:
      ANCHORD_LABEL_SELECTOR: anchord.role=sentry-web
`,
  });
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.anchors[0]?.backends, ['web']);
  assert.deepEqual(report.anchors[0]?.entries, [
    { family: 'ipv4', proto: 'tcp', port: 443, backend: 'web', backendPort: 9000 },
  ]);
});

test('regression: an anchor environment shared through a fragment keeps the overlap it makes', () => {
  // The Compose specification's fragments pattern: two anchors built from one `x-` fragment,
  // both with the same scope. The overlap is the point: it must be found, through the alias.
  const report = checkFiles({
    'compose.yaml': `x-anchor-env: &anchor_env
  ANCHORD_LABEL_SELECTOR: anchord.role=ldap
  ANCHORD_EXT_NETWORK: dmz
x-anchor: &anchor
  image: labelwise/anchor
  environment: *anchor_env
services:
  ldap-a: *anchor
  ldap-b:
    <<: *anchor
    networks: [dmz]
  outpost:
    labels: { anchord.role: ldap, anchord.expose: tcp/389 }
`,
  });
  assert.deepEqual(
    report.overlaps.map((o) => [o.a, o.b]),
    [['ldap-a', 'ldap-b']],
  );
  const overlap = report.errors.find((e) => e.code === 'ANCHOR_SCOPE_OVERLAP');
  // Located at the fragment, where the shared selector is written.
  assert.deepEqual([overlap?.file, overlap?.line], ['compose.yaml', 2]);
  assert.match(overlap?.message ?? '', /already claimed by both: outpost/);
});

test('regression: mailcow - COMPOSE_PROJECT_NAME in .env names the project the anchor serves', () => {
  const report = checkFiles(
    {
      '.env': 'MAILCOW_HOSTNAME=mail.example.org\nCOMPOSE_PROJECT_NAME=mailcowdockerized\n',
      'compose.yaml': `services:
  anchord:
    image: labelwise/anchor
    environment:
      - ANCHORD_PROJECT=\${COMPOSE_PROJECT_NAME}
  postfix-mailcow:
    labels:
      anchord.expose: tcp/25,tcp/465,tcp/587
`,
    },
    { directoryName: 'mailcow-dockerized' },
  );
  assert.equal(report.project, 'mailcowdockerized');
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.anchors[0]?.scope, 'com.docker.compose.project=mailcowdockerized');
  assert.deepEqual(report.anchors[0]?.backends, ['postfix-mailcow']);
});

test('regression: anchord\'s compose.example.yaml - no false "ANCHORD_PROJECT must be set"', () => {
  const report = checkFiles({
    'compose.yaml': `name: mailcow-example
services:
  anchord:
    image: ghcr.io/alexcherrypi/anchord:latest
    environment:
      ANCHORD_PROJECT: \${COMPOSE_PROJECT_NAME}
      ANCHORD_LOG_LEVEL: info
    networks: [transit]
  smtp-anchor:
    image: alpine:3.21
    command: ["sleep", "infinity"]
    networks: [transit, backend]
    labels:
      anchord.expose: "tcp/25,tcp/465,tcp/587"
  imap-anchor:
    image: alpine:3.21
    networks: [transit, backend]
    labels:
      anchord.expose: "tcp/143,tcp/993"
`,
  });
  assert.deepEqual(
    report.errors.map((e) => e.code),
    [],
  );
  assert.equal(report.anchors[0]?.scope, 'com.docker.compose.project=mailcow-example');
  assert.deepEqual(report.anchors[0]?.backends, ['imap-anchor', 'smtp-anchor']);
  assert.equal(report.anchors[0]?.entries.length, 5);
});

test('the anchor scope from an env_file and extends is what the check proves overlaps on', () => {
  const report = checkFiles({
    'compose.yaml': `services:
  base-anchor:
    image: labelwise/anchor
    command: [network-anchor]
    env_file: anchors/common.env
  a:
    extends: base-anchor
    environment: { ANCHORD_LABEL_SELECTOR: "anchord.role=a" }
  b:
    extends: { file: anchors/more.yaml, service: b }
`,
    'anchors/common.env': 'ANCHORD_EXT_NETWORK=dmz\n',
    'anchors/more.yaml': `services:
  b:
    image: labelwise/anchor
    env_file: b.env
`,
    'anchors/b.env': 'ANCHORD_LABEL_SELECTOR=anchord.role=a\n',
  });
  // base-anchor has no scope of its own: one config error, and a and b overlap.
  assert.deepEqual(report.errors.map((e) => [e.code, e.service]).sort(), [
    ['ANCHOR_INVALID_CONFIG', 'base-anchor'],
    ['ANCHOR_SCOPE_OVERLAP', 'b'],
  ]);
  const overlap = report.errors.find((e) => e.code === 'ANCHOR_SCOPE_OVERLAP');
  assert.deepEqual([overlap?.file, overlap?.line], ['anchors/b.env', 1]);
});

test('profiles: without --profile every combination is proved; a profile-only claim names its profile', () => {
  // Issue 21: an anchor's claim on a `profiles: [flower]` backend was never shown, and two
  // anchors both claiming a profile-only service were not an error.
  const files = {
    'compose.yaml': `services:
  anchor:
    environment: { ANCHORD_LABEL_SELECTOR: "role=x" }
  flower-anchor:
    profiles: [flower]
    environment: { ANCHORD_LABEL_SELECTOR: "role=x,tier=ui" }
  flower:
    profiles: [flower, debug]
    labels: { role: x, tier: ui, anchord.expose: tcp/5555 }
`,
  };
  const every = checkFiles(files);
  assert.deepEqual(
    every.anchors.map((a) => [a.service, a.backends, a.profiles, a.backendProfiles]),
    [
      ['anchor', ['flower'], undefined, { flower: ['debug', 'flower'] }],
      ['flower-anchor', ['flower'], ['flower'], { flower: ['debug', 'flower'] }],
    ],
  );
  assert.deepEqual(
    every.overlaps.map((o) => [o.a, o.b, o.profiles]),
    [['anchor', 'flower-anchor', ['flower']]],
  );
  const overlap = every.errors.find((e) => e.code === 'ANCHOR_SCOPE_OVERLAP');
  assert.match(overlap?.message ?? '', /can claim the same container \(with --profile flower\)/);
  assert.match(overlap?.message ?? '', /already claimed by both: flower \(with --profile flower\)/);
  // One combination, as Compose runs it: the profile-only services are left out.
  const none = checkFiles(files, { profiles: ['none'] });
  assert.deepEqual(
    none.anchors.map((a) => [a.service, a.backends]),
    [['anchor', []]],
  );
  assert.deepEqual(none.errors, []);
});

test('a compose file or env file outside the repository is skipped with a warning', () => {
  const report = checkFiles({
    'compose.yaml': `services:
  anchor:
    env_file: ../secrets.env
    extends: { file: /etc/compose.yaml, service: x }
    environment: { ANCHORD_LABEL_SELECTOR: "role=x" }
`,
  });
  assert.deepEqual(
    report.warnings.map((w) => [w.code, w.file]),
    [
      ['READ_OUTSIDE_REPOSITORY', '../secrets.env'],
      ['READ_OUTSIDE_REPOSITORY', '/etc/compose.yaml'],
    ],
  );
  assert.deepEqual(report.errors, []);
});

test('hostile names: services and keys named __proto__ or constructor are plain data', () => {
  const report = checkFiles({
    'compose.yaml': `services:
  __proto__:
    environment: { constructor: x, ANCHORD_LABEL_SELECTOR: "__proto__=1" }
  constructor:
    labels: { __proto__: "1", anchord.expose: tcp/80 }
  toString:
`,
  });
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.anchors[0]?.service, '__proto__');
  assert.deepEqual(report.anchors[0]?.backends, ['constructor']);
  const loaded = loadComposeProject({
    files: ['compose.yaml'],
    fs: memoryFileSystem({
      'compose.yaml': 'services:\n  __proto__:\n    environment: { constructor: x }\n',
    }),
    directoryName: 'p',
  });
  const snapshot = projectSnapshot(loaded.project);
  assert.equal(Object.getPrototypeOf(snapshot.services), Object.prototype);
  assert.deepEqual(Object.keys(snapshot.services), ['__proto__']);
});

test('regression: depends_on as a list in the base and a mapping in the production overlay', () => {
  // The two documented `-f docker-compose.yml -f docker-compose.prod.yml` recipes of issue 21
  // failed here with "cannot merge a mapping over a list"; Compose converts each side first.
  const report = checkFiles(
    {
      'docker-compose.yml': `services:
  web:
    image: example/web
    depends_on: [db]
    ports: ["8080:80"]
    labels: [anchord.role=web, "anchord.expose=tcp/80"]
  db:
    image: postgres:16
  anchor:
    image: labelwise/anchor
    environment: [ANCHORD_LABEL_SELECTOR=anchord.role=web]
`,
      'docker-compose.prod.yml': `services:
  web:
    depends_on:
      db: { condition: service_healthy }
    ports: [{ target: 80, published: 8080 }]
    labels: { anchord.expose: "tcp/80,tcp/443:8443" }
`,
    },
    { composeFiles: ['docker-compose.yml', 'docker-compose.prod.yml'] },
  );
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.anchors[0]?.backends, ['web']);
  assert.deepEqual(
    report.anchors[0]?.entries.map((e) => `${e.proto}/${e.port}:${e.backendPort}`),
    ['tcp/80:80', 'tcp/443:8443'],
  );
});

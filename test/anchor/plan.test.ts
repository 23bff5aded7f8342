import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelwiseError } from '../../src/base/errors.js';
import { chooseSharedNetwork, loadConfig, plan } from '../../src/anchor/index.js';
import type { PlanOptions } from '../../src/anchor/index.js';
import { parseEqualityList } from '../../src/selector/index.js';
import { container, snapshot } from './helpers.js';

const scope = (text: string): PlanOptions => ({
  scope: parseEqualityList(text),
  excludeNetworks: ['dmz'],
});
const on = (ipv4: string, ipv6?: string, name = 'transit') => [
  { name, ipv4, ...(ipv6 !== undefined ? { ipv6 } : {}) },
];

test('anchord scenario: selector {role: ldap} over three containers claims only the ldap one', () => {
  const result = plan(
    snapshot([
      container('ldap', { role: 'ldap', 'anchord.expose': 'tcp/389' }, on('172.20.0.2')),
      container('proxy', { role: 'proxy', 'anchord.expose': 'tcp/443' }, on('172.20.0.3')),
      container('plain', { 'anchord.expose': 'tcp/80' }, on('172.20.0.4')),
    ]),
    scope('role=ldap'),
  );
  assert.deepEqual(
    result.backends.map((b) => b.container),
    ['ldap'],
  );
  assert.deepEqual(result.entries, [
    {
      family: 'ipv4',
      proto: 'tcp',
      port: 389,
      address: '172.20.0.2',
      backendPort: 389,
      container: 'ldap',
    },
  ]);
});

test('anchord scenario: AND of two keys', () => {
  const result = plan(
    snapshot([
      container(
        'both',
        { role: 'ldap', env: 'prod', 'anchord.expose': 'tcp/389' },
        on('172.20.0.2'),
      ),
      container('role-only', { role: 'ldap', 'anchord.expose': 'tcp/390' }, on('172.20.0.3')),
      container('env-only', { env: 'prod', 'anchord.expose': 'tcp/391' }, on('172.20.0.4')),
    ]),
    scope('role=ldap,env=prod'),
  );
  assert.deepEqual(
    result.backends.map((b) => b.container),
    ['both'],
  );
});

test('anchord scenario: empty selector falls back to the project scope (legacy behaviour)', () => {
  const { config } = loadConfig({ ANCHORD_LABEL_SELECTOR: '', ANCHORD_PROJECT: 'ix-a' });
  const result = plan(
    snapshot([
      container(
        'in-project',
        { 'com.docker.compose.project': 'ix-a', 'anchord.expose': 'tcp/80' },
        on('172.20.0.2'),
      ),
      container(
        'other',
        { 'com.docker.compose.project': 'ix-b', 'anchord.expose': 'tcp/81' },
        on('172.20.0.3'),
      ),
      container('loose', { 'anchord.expose': 'tcp/82' }, on('172.20.0.4')),
    ]),
    { scope: config.scope, excludeNetworks: ['dmz'] },
  );
  assert.deepEqual(
    result.backends.map((b) => b.container),
    ['in-project'],
  );
});

test('port translation, udp, and sorted entries', () => {
  const result = plan(
    snapshot([container('dns', { 'anchord.expose': 'udp/53:5353,tcp/53:5353' }, on('172.20.0.9'))]),
    scope(''),
  );
  assert.deepEqual(
    result.entries.map((e) => `${e.family} ${e.proto} ${e.port}->${e.address}:${e.backendPort}`),
    ['ipv4 tcp 53->172.20.0.9:5353', 'ipv4 udp 53->172.20.0.9:5353'],
  );
});

test('blank or absent expose label: not a backend, no warning', () => {
  const result = plan(
    snapshot([
      container('blank', { 'anchord.expose': '  ' }, on('172.20.0.2')),
      container('none', {}, on('172.20.0.3')),
    ]),
    scope(''),
  );
  assert.equal(result.backends.length, 0);
  assert.deepEqual(result.notices, []);
});

test('invalid expose labels: warning, container skipped, others unaffected', () => {
  const result = plan(
    snapshot([
      container('evil', { 'anchord.expose': 'tcp/80;flush ruleset' }, on('172.20.0.2')),
      container(
        'evil-v6',
        { 'anchord.expose': 'tcp/81', 'anchord.expose.v6': 'sometimes' },
        on('172.20.0.3'),
      ),
      container('good', { 'anchord.expose': 'tcp/82' }, on('172.20.0.4')),
    ]),
    scope(''),
  );
  assert.deepEqual(
    result.backends.map((b) => b.container),
    ['good'],
  );
  assert.deepEqual(
    result.notices.map((n) => [n.level, n.msg, n.attrs.container]),
    [
      ['warn', 'invalid expose labels', 'evil'],
      ['warn', 'invalid expose labels', 'evil-v6'],
    ],
  );
  assert.deepEqual(
    result.notices.map((n) => n.attrs.label),
    ['anchord.expose', 'anchord.expose.v6'],
  );
});

test('no usable IP: warning and skipped (missing, garbage, or on another network)', () => {
  const result = plan(
    snapshot([
      container('none', { 'anchord.expose': 'tcp/80' }, on('')),
      container('garbage', { 'anchord.expose': 'tcp/81' }, on('1.2.3.4; flush ruleset')),
      container('elsewhere', { 'anchord.expose': 'tcp/82' }, on('172.30.0.2', undefined, 'other')),
      container('ok', { 'anchord.expose': 'tcp/83' }, on('172.20.0.5')),
    ]),
    scope(''),
  );
  assert.deepEqual(
    result.backends.map((b) => b.container),
    ['ok'],
  );
  assert.deepEqual(
    result.notices
      .filter((n) => n.msg === 'no usable IP for container')
      .map((n) => n.attrs.container),
    ['elsewhere', 'garbage', 'none'],
  );
});

test('IPv6 mirroring: auto with a global address, off, and link-local refused', () => {
  const result = plan(
    snapshot([
      container('auto', { 'anchord.expose': 'tcp/80' }, on('172.20.0.2', 'fd00:20::2')),
      container(
        'off',
        { 'anchord.expose': 'tcp/81', 'anchord.expose.v6': 'off' },
        on('172.20.0.3', 'fd00:20::3'),
      ),
      container('linklocal', { 'anchord.expose': 'tcp/82' }, on('172.20.0.4', 'fe80::4')),
    ]),
    scope(''),
  );
  assert.deepEqual(
    result.entries.map((e) => `${e.family}/${e.port}/${e.address}`),
    ['ipv4/80/172.20.0.2', 'ipv4/81/172.20.0.3', 'ipv4/82/172.20.0.4', 'ipv6/80/fd00:20::2'],
  );
});

test('an IPv6-only backend gets only IPv6 entries', () => {
  const result = plan(
    snapshot([
      container('v6', { 'anchord.expose': 'tcp/80' }, [
        { name: 'transit', ipv4: '', ipv6: '2001:db8::5' },
      ]),
    ]),
    scope(''),
  );
  assert.deepEqual(
    result.entries.map((e) => `${e.family}/${e.address}`),
    ['ipv6/2001:db8::5'],
  );
});

test('conflict: the container created first wins, then the lower name, with a warning naming both', () => {
  const result = plan(
    snapshot([
      container('zeta', { 'anchord.expose': 'tcp/443' }, on('172.20.0.2'), { created: 1000 }),
      container('alpha', { 'anchord.expose': 'tcp/443,tcp/80' }, on('172.20.0.3'), {
        created: 2000,
      }),
      container('beta', { 'anchord.expose': 'tcp/80' }, on('172.20.0.4'), { created: 2000 }),
    ]),
    scope(''),
  );
  assert.deepEqual(
    result.entries.map((e) => `${e.port}:${e.container}`),
    ['80:alpha', '443:zeta'],
  );
  assert.deepEqual(result.conflicts, [
    { family: 'ipv4', proto: 'tcp', port: 80, winner: 'alpha', losers: ['beta'] },
    { family: 'ipv4', proto: 'tcp', port: 443, winner: 'zeta', losers: ['alpha'] },
  ]);
  assert.deepEqual(
    result.notices.map((n) => [n.msg, n.attrs.winner, n.attrs.loser]),
    [
      ['backend port conflict', 'alpha', 'beta'],
      ['backend port conflict', 'zeta', 'alpha'],
    ],
  );
});

test('conflict resolution does not depend on list order', () => {
  const a = container('a', { 'anchord.expose': 'tcp/80' }, on('172.20.0.2'), { created: 5 });
  const b = container('b', { 'anchord.expose': 'tcp/80' }, on('172.20.0.3'), { created: 5 });
  assert.deepEqual(plan(snapshot([a, b]), scope('')), plan(snapshot([b, a]), scope('')));
});

test('network_mode container:X uses X addresses', () => {
  const result = plan(
    snapshot(
      [container('sidecar', { 'anchord.expose': 'tcp/8080' }, [], { networkContainer: 'vpn' })],
      ['dmz', 'transit'],
      { vpn: on('172.20.0.77') },
    ),
    scope(''),
  );
  assert.deepEqual(
    result.entries.map((e) => e.address),
    ['172.20.0.77'],
  );
});

test('shared network: the candidate most backends use; ties to transit, then alphabetical; outside excluded', () => {
  const choose = (self: string[], backends: string[][], exclude = ['dmz']) =>
    chooseSharedNetwork({ selfNetworks: self, exclude, backendNetworks: backends });
  assert.equal(choose(['dmz', 'a', 'b'], [['b'], ['b', 'a'], ['b']]).network, 'b');
  assert.equal(choose(['dmz', 'a', 'my_transit'], [['a', 'my_transit']]).network, 'my_transit');
  assert.equal(choose(['dmz', 'c', 'b'], []).network, 'b');
  assert.equal(choose(['dmz', 'c', 'b'], []).lock, false);
  assert.equal(choose(['dmz', 'b'], [['dmz'], ['dmz']]).network, 'b');
  assert.equal(choose(['dmz', 'b'], [['b']]).lock, true);
});

test('shared network: locked and pinned choices stay', () => {
  assert.equal(
    chooseSharedNetwork({
      selfNetworks: ['a', 'b'],
      exclude: [],
      locked: 'a',
      backendNetworks: [['b'], ['b']],
    }).network,
    'a',
  );
  assert.equal(
    chooseSharedNetwork({
      selfNetworks: ['a', 'b'],
      exclude: [],
      pinned: 'a',
      backendNetworks: [['b']],
    }).network,
    'a',
  );
});

test('shared network: pinned but not attached, and no candidate, are fatal errors', () => {
  assert.throws(
    () =>
      chooseSharedNetwork({ selfNetworks: ['a'], exclude: [], pinned: 'zz', backendNetworks: [] }),
    (e: unknown) =>
      e instanceof LabelwiseError &&
      e.code === 'ANCHOR_SHARED_NETWORK_NOT_ATTACHED' &&
      e.source.env === 'ANCHORD_SHARED_NETWORK',
  );
  assert.throws(
    () => chooseSharedNetwork({ selfNetworks: ['dmz'], exclude: ['dmz'], backendNetworks: [] }),
    (e: unknown) => e instanceof LabelwiseError && e.code === 'ANCHOR_NO_SHARED_NETWORK',
  );
});

test('shared network re-pick is reported with old and new', () => {
  const result = plan(
    snapshot([container('x', { 'anchord.expose': 'tcp/80' }, on('172.20.0.2'))]),
    {
      ...scope(''),
      previousSharedNetwork: 'other',
    },
  );
  assert.deepEqual(result.notices, [
    { level: 'info', msg: 'shared network re-picked', attrs: { old: 'other', new: 'transit' } },
  ]);
  assert.equal(result.lockShared, true);
});

test('hostile label keys do not confuse matching (__proto__, constructor)', () => {
  const result = plan(
    snapshot([
      container(
        'x',
        { __proto__: 'a', constructor: 'b', 'anchord.expose': 'tcp/80' } as Record<string, string>,
        on('172.20.0.2'),
      ),
    ]),
    scope('constructor=b'),
  );
  assert.deepEqual(
    result.backends.map((b) => b.container),
    ['x'],
  );
});

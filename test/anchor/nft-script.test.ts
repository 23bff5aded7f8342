import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { conntrackFlushes, renderDeleteScript, renderNftScript } from '../../src/anchor/index.js';
import type { DnatEntry } from '../../src/anchor/index.js';

const entries: DnatEntry[] = [
  {
    family: 'ipv6',
    proto: 'tcp',
    port: 443,
    address: 'fd00:20::2',
    backendPort: 8443,
    container: 'web',
  },
  {
    family: 'ipv4',
    proto: 'udp',
    port: 53,
    address: '172.20.0.9',
    backendPort: 5353,
    container: 'dns',
  },
  {
    family: 'ipv4',
    proto: 'tcp',
    port: 443,
    address: '172.20.0.2',
    backendPort: 8443,
    container: 'web',
  },
  {
    family: 'ipv4',
    proto: 'tcp',
    port: 80,
    address: '172.20.0.2',
    backendPort: 80,
    container: 'web',
  },
];

test('nft script matches the golden file (layout and names are an interface)', () => {
  const golden = new URL('./fixtures/nft-script.golden.nft', import.meta.url);
  const rendered = renderNftScript(entries, { extIface: 'eth1' });
  // Goldens change only on purpose: UPDATE_GOLDEN=1 npm test -- nft-script
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden, rendered);
  assert.equal(rendered, readFileSync(golden, 'utf8'));
});

test('nft script is deterministic whatever the entry order', () => {
  assert.equal(
    renderNftScript([...entries].reverse(), { extIface: 'eth1' }),
    renderNftScript(entries, { extIface: 'eth1' }),
  );
});

test('no entries: both tables with empty maps (a successful empty list clears the maps)', () => {
  const script = renderNftScript([], { extIface: 'eth0' });
  assert.match(script, /map dnat_tcp \{\n\t\ttype inet_service : ipv4_addr \. inet_service\n\t\}/);
  assert.doesNotMatch(script, /elements/);
});

test('unvalidated values never reach the script: the renderer refuses them', () => {
  const bad: DnatEntry = {
    family: 'ipv4',
    proto: 'tcp',
    port: 80,
    address: '1.2.3.4 } ; flush ruleset',
    backendPort: 80,
    container: 'x',
  };
  assert.throws(() => renderNftScript([bad], { extIface: 'eth0' }), /unvalidated address/);
  assert.throws(
    () => renderNftScript([{ ...bad, address: '1.2.3.4', port: 70000 }], { extIface: 'eth0' }),
    /invalid port/,
  );
  assert.throws(
    () => renderNftScript([], { extIface: 'eth0"; flush ruleset' }),
    /invalid interface/,
  );
});

function nftUsable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root for nft --check';
  const probe = spawnSync('nft', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? undefined : 'nft is not installed';
}

test('the rendered scripts pass nft --check (real nft)', (t) => {
  const reason = nftUsable();
  if (reason !== undefined) return t.skip(reason);
  for (const script of [
    renderNftScript(entries, { extIface: 'eth1' }),
    renderNftScript([], { extIface: 'eth0' }),
    renderDeleteScript(),
  ]) {
    const result = spawnSync('nft', ['--check', '-f', '-'], { input: script, encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
  }
});

const e = (
  port: number,
  address: string,
  backendPort = port,
  proto: 'tcp' | 'udp' = 'tcp',
): DnatEntry => ({
  family: 'ipv4',
  proto,
  port,
  address,
  backendPort,
  container: 'c',
});

test('conntrack: nothing changed, nothing flushed', () => {
  assert.deepEqual(conntrackFlushes([e(80, '10.0.0.2')], [e(80, '10.0.0.2')]), []);
});

test('conntrack: a backend address change flushes the old address and port', () => {
  assert.deepEqual(conntrackFlushes([e(80, '10.0.0.2')], [e(80, '10.0.0.3')]), [
    { family: 'ipv4', proto: 'tcp', address: '10.0.0.2', backendPort: 80 },
  ]);
});

test('conntrack: a removed key flushes; a backend port change flushes the old port', () => {
  assert.deepEqual(
    conntrackFlushes([e(80, '10.0.0.2'), e(53, '10.0.0.2', 53, 'udp')], [e(80, '10.0.0.2', 8080)]),
    [
      { family: 'ipv4', proto: 'tcp', address: '10.0.0.2', backendPort: 80 },
      { family: 'ipv4', proto: 'udp', address: '10.0.0.2', backendPort: 53 },
    ],
  );
});

test('conntrack: a target still served by another key is not flushed, duplicates collapse', () => {
  assert.deepEqual(
    conntrackFlushes([e(80, '10.0.0.2', 8080), e(81, '10.0.0.2', 8080)], [e(81, '10.0.0.2', 8080)]),
    [],
  );
  assert.deepEqual(conntrackFlushes([e(80, '10.0.0.2', 8080), e(81, '10.0.0.2', 8080)], []), [
    { family: 'ipv4', proto: 'tcp', address: '10.0.0.2', backendPort: 8080 },
  ]);
});

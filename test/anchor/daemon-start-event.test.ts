// A container's `start` event is planned from the last snapshot plus one inspect of that
// container, before the full list confirms it; anything the fast path cannot see falls back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContainerEvent, DiscoveryPort } from '../../src/anchor/io/docker-discovery.js';
import type { KernelPort } from '../../src/anchor/io/nft.js';
import { AnchorDaemon, loadConfig } from '../../src/anchor/index.js';
import type { ContainerInfo, Snapshot } from '../../src/anchor/index.js';
import { AnchorMetrics } from '../../src/anchor/metrics.js';
import { createLogger } from '../../src/anchor/run.js';
import { container, snapshot } from './helpers.js';

const old = container('a', { role: 'a', 'anchord.expose': 'tcp/80' }, [
  { name: 'transit', ipv4: '172.20.0.2' },
]);
const started = container('b', { role: 'a', 'anchord.expose': 'tcp/81' }, [
  { name: 'transit', ipv4: '172.20.0.3' },
]);

function setup(inspected: ContainerInfo | undefined) {
  const calls: string[] = [];
  const applied: string[] = [];
  let emit: (event?: ContainerEvent) => void = () => {};
  let current: Snapshot = snapshot([old]);
  const discovery: DiscoveryPort = {
    findSelf: async () => current.self,
    snapshot: async () => {
      calls.push('snapshot');
      return current;
    },
    inspectContainer: async (id) => {
      calls.push(`inspect ${id}`);
      return inspected;
    },
    watch: async (_scope, onEvent) => {
      emit = onEvent;
      return { stop: () => undefined };
    },
  };
  const kernel: KernelPort = {
    apply: async (script) => {
      calls.push('apply');
      applied.push(script);
    },
    flush: async () => 0,
  };
  const { config } = loadConfig({ ANCHORD_LABEL_SELECTOR: 'role=a', ANCHORD_METRICS_ADDR: '' });
  const daemon = new AnchorDaemon(config, {
    discovery,
    kernel,
    interfaces: async () => new Map(),
    logger: createLogger('error', () => {}),
    metrics: new AnchorMetrics(),
  });
  return {
    daemon,
    calls,
    applied,
    emit: (event?: ContainerEvent) => emit(event),
    setList: (s: Snapshot) => (current = s),
  };
}

async function settle(daemon: AnchorDaemon): Promise<void> {
  await daemon.reconcileNow('event');
}

test('a start event: one inspect, one apply, then the full list confirms without another apply', async () => {
  const t = setup(started);
  await t.daemon.start();
  t.calls.length = 0;
  t.setList(snapshot([old, started]));
  t.emit({ action: 'start', id: started.id });
  await settle(t.daemon);
  assert.deepEqual(t.calls.slice(0, 2), [`inspect ${started.id}`, 'apply']);
  assert.match(t.applied.at(-1) as string, /81 : 172\.20\.0\.3 \. 81/);
  assert.match(t.applied.at(-1) as string, /80 : 172\.20\.0\.2 \. 80/, 'the others stay');
  assert.ok(t.calls.includes('snapshot'), 'the full list follows');
  assert.equal(t.calls.filter((c) => c === 'apply').length, 1, 'and agrees: no second apply');
  await t.daemon.stop();
});

test('a start the fast path cannot read (gone, or in another namespace) takes the full path', async () => {
  for (const inspected of [undefined, { ...started, networkContainer: 'owner' }]) {
    const t = setup(inspected);
    await t.daemon.start();
    t.calls.length = 0;
    t.setList(snapshot([old, started]));
    t.emit({ action: 'start', id: started.id });
    await settle(t.daemon);
    assert.deepEqual(t.calls.slice(0, 3), [`inspect ${started.id}`, 'snapshot', 'apply']);
    await t.daemon.stop();
  }
});

test('other events and unreadable ones take the full path without an inspect', async () => {
  for (const event of [{ action: 'die', id: old.id }, undefined]) {
    const t = setup(started);
    await t.daemon.start();
    t.calls.length = 0;
    t.setList(snapshot([]));
    t.emit(event);
    await settle(t.daemon);
    // (the wait itself asks for one more reconcile: a list, and nothing to apply)
    assert.deepEqual(t.calls.slice(0, 2), ['snapshot', 'apply']);
    assert.ok(!t.calls.some((c) => c.startsWith('inspect')));
    assert.equal(t.calls.filter((c) => c === 'apply').length, 1);
    await t.daemon.stop();
  }
});

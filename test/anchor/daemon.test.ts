import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DockerDiscovery } from '../../src/anchor/io/docker-discovery.js';
import type { KernelPort } from '../../src/anchor/io/nft.js';
import { AnchorDaemon, loadConfig, runAnchorDaemon } from '../../src/anchor/index.js';
import type { ConntrackFlush } from '../../src/anchor/index.js';
import { AnchorMetrics } from '../../src/anchor/metrics.js';
import { createLogger } from '../../src/anchor/run.js';
import type { FakeContainer } from './docker-stand-in.js';
import { fake, startStandIn } from './docker-stand-in.js';

const SELF_MAC = '02:42:0a:00:00:01';
const TRANSIT_MAC = '02:42:ac:14:00:0a';

/** Records what would go to the kernel: the daemon's collaborator, not the thing under test. */
class RecordingKernel implements KernelPort {
  scripts: string[] = [];
  flushes: ConntrackFlush[] = [];
  async apply(script: string): Promise<void> {
    this.scripts.push(script);
  }
  async flush(flush: ConntrackFlush): Promise<number> {
    this.flushes.push(flush);
    return 1;
  }
}

function anchor(): FakeContainer {
  return {
    Id: 'anchor-0123456789abcdef',
    Names: ['/anchor'],
    Created: 1,
    Labels: {},
    NetworkSettings: {
      Networks: {
        dmz: { IPAddress: '192.0.2.81', MacAddress: SELF_MAC },
        transit: { IPAddress: '172.20.0.10', MacAddress: TRANSIT_MAC },
      },
    },
  };
}

async function setup(
  containers: FakeContainer[],
  env: Record<string, string> = { ANCHORD_LABEL_SELECTOR: 'role=a' },
) {
  const standIn = await startStandIn([anchor(), ...containers]);
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', (line) =>
    lines.push(JSON.parse(line) as Record<string, unknown>),
  );
  const { config } = loadConfig({
    ...env,
    DOCKER_HOST: `unix://${standIn.socketPath}`,
    ANCHORD_EXT_NETWORK: 'dmz',
    ANCHORD_METRICS_ADDR: '',
  });
  const kernel = new RecordingKernel();
  const metrics = new AnchorMetrics();
  const daemon = new AnchorDaemon(config, {
    discovery: new DockerDiscovery(config.docker),
    kernel,
    interfaces: async () =>
      new Map([
        [SELF_MAC, 'eth0'],
        [TRANSIT_MAC, 'eth1'],
      ]),
    logger,
    metrics,
    backoff: { minMs: 20, maxMs: 100 },
  });
  return { standIn, lines, kernel, metrics, daemon };
}

async function until(what: string, check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('daemon: applies once, skips the apply when nothing changed, logs reconciled', async () => {
  const { standIn, lines, kernel, daemon } = await setup([
    fake('a', { role: 'a', 'anchord.expose': 'tcp/80' }, 'transit', '172.20.0.2'),
  ]);
  try {
    await daemon.start();
    assert.equal(kernel.scripts.length, 1);
    assert.match(kernel.scripts[0] as string, /80 : 172\.20\.0\.2 \. 80/);
    assert.match(kernel.scripts[0] as string, /oifname "eth0" masquerade/);
    const second = await daemon.reconcileNow('poll');
    assert.equal(second?.result, 'noop');
    assert.equal(kernel.scripts.length, 1, 'no nft call when nothing changed');
    const reconciled = lines.filter((l) => l.msg === 'reconciled');
    assert.equal(reconciled.length, 2);
    assert.equal(reconciled[0]?.backends, 1);
    assert.equal(reconciled[0]?.entries, 1);
    assert.equal(reconciled[0]?.conntrack_flushed, 0);
    assert.equal(typeof reconciled[0]?.duration_ms, 'number');
    assert.deepEqual(daemon.readiness(), { tablesInstalled: true, reconciled: true });
  } finally {
    await daemon.stop();
    await standIn.close();
  }
});

test('daemon: an address change flushes conntrack for the old backend', async () => {
  const { standIn, kernel, daemon, metrics } = await setup([
    fake('a', { role: 'a', 'anchord.expose': 'tcp/80' }, 'transit', '172.20.0.2'),
  ]);
  try {
    await daemon.start();
    standIn.containers = [
      anchor(),
      fake('a', { role: 'a', 'anchord.expose': 'tcp/80' }, 'transit', '172.20.0.7'),
    ];
    const outcome = await daemon.reconcileNow('event');
    assert.equal(outcome?.conntrackFlushed, 1);
    assert.deepEqual(kernel.flushes, [
      { family: 'ipv4', proto: 'tcp', address: '172.20.0.2', backendPort: 80 },
    ]);
    assert.match(
      await metrics.registry.metrics(),
      /anchord_conntrack_flushes_total\{family="v4"\} 1/,
    );
  } finally {
    await daemon.stop();
    await standIn.close();
  }
});

test('daemon: Docker down keeps the last applied rules (fail static) and recovers', async () => {
  const { standIn, lines, kernel, daemon } = await setup([
    fake('a', { role: 'a', 'anchord.expose': 'tcp/80' }, 'transit', '172.20.0.2'),
  ]);
  try {
    await daemon.start();
    standIn.failing = true;
    const outcome = await daemon.reconcileNow('poll');
    assert.equal(outcome?.result, 'error');
    assert.equal(kernel.scripts.length, 1, 'rules untouched while Docker is down');
    assert.ok(
      lines.some(
        (l) => l.msg === 'docker unavailable; keeping last applied rules' && l.level === 'WARN',
      ),
    );
    standIn.failing = false;
    standIn.containers = [anchor()];
    // The retry timer reconciles on its own; a successful empty list clears the maps.
    await until('the retry reconcile', () => kernel.scripts.length === 2);
    assert.doesNotMatch(kernel.scripts[1] as string, /elements/);
  } finally {
    await daemon.stop();
    await standIn.close();
  }
});

test('daemon: Docker events trigger a reconcile; bursts coalesce', async () => {
  const { standIn, kernel, daemon, metrics } = await setup([]);
  try {
    await daemon.start();
    await until('the event stream', () =>
      standIn.requests.some((r) => r.startsWith('GET /events')),
    );
    const eventsRequest = standIn.requests.find((r) => r.startsWith('GET /events')) as string;
    const filters = JSON.parse(
      new URL(eventsRequest.slice(4), 'http://x').searchParams.get('filters') ?? '{}',
    ) as Record<string, string[]>;
    assert.deepEqual(
      filters,
      { type: ['container'], label: ['role=a'] },
      'events are scoped without the expose label',
    );
    standIn.containers = [
      anchor(),
      fake('a', { role: 'a', 'anchord.expose': 'tcp/80' }, 'transit', '172.20.0.2'),
    ];
    const listsBefore = standIn.requests.filter((r) => r.startsWith('GET /containers/json')).length;
    for (let i = 0; i < 20; i++) standIn.emit({ Type: 'container', Action: 'start', id: `x${i}` });
    await until('the event-driven apply', () => kernel.scripts.length === 2);
    await daemon.reconcileNow('event');
    const lists =
      standIn.requests.filter((r) => r.startsWith('GET /containers/json')).length - listsBefore;
    assert.ok(lists <= 4, `20 events coalesced into ${lists} list calls`);
    assert.match(
      await metrics.registry.metrics(),
      /anchord_docker_events_total\{source="event"\} \d+/,
    );
  } finally {
    await daemon.stop();
    await standIn.close();
  }
});

test('daemon: warnings are logged when they first appear, not on every poll; conflicts are counted', async () => {
  const { standIn, lines, daemon, metrics } = await setup([
    fake('a1', { role: 'a', 'anchord.expose': 'tcp/80' }, 'transit', '172.20.0.2', undefined, 100),
    fake('a2', { role: 'a', 'anchord.expose': 'tcp/80' }, 'transit', '172.20.0.3', undefined, 200),
    fake('bad', { role: 'a', 'anchord.expose': 'tcp/80\nflush ruleset' }, 'transit', '172.20.0.4'),
  ]);
  try {
    await daemon.start();
    await daemon.reconcileNow('poll');
    await daemon.reconcileNow('poll');
    assert.equal(lines.filter((l) => l.msg === 'invalid expose labels').length, 1);
    const conflicts = lines.filter((l) => l.msg === 'backend port conflict');
    assert.equal(conflicts.length, 1);
    assert.equal(conflicts[0]?.winner, 'a1');
    assert.equal(conflicts[0]?.loser, 'a2');
    assert.match(await metrics.registry.metrics(), /anchord_backend_conflicts_total 1/);
  } finally {
    await daemon.stop();
    await standIn.close();
  }
});

test('daemon: stop removes both tables', async () => {
  const { standIn, kernel, daemon } = await setup([]);
  await daemon.start();
  await daemon.stop();
  assert.equal(await daemon.done, 0);
  assert.match(
    kernel.scripts.at(-1) as string,
    /delete table ip anchord_v4\n.*\ndelete table ip6 anchord_v6/s,
  );
  await standIn.close();
});

test('daemon: the pinned shared network missing is fatal (exit 1, one fatal line)', async () => {
  const { standIn, lines, daemon } = await setup([], {
    ANCHORD_LABEL_SELECTOR: 'role=a',
    ANCHORD_SHARED_NETWORK: 'nope',
  });
  try {
    await daemon.start();
    assert.equal(await daemon.done, 1);
    const fatal = lines.filter((l) => l.msg === 'fatal');
    assert.equal(fatal.length, 1);
    assert.equal(fatal[0]?.msg, 'fatal');
    assert.equal(fatal[0]?.code, 'ANCHOR_SHARED_NETWORK_NOT_ATTACHED');
  } finally {
    await daemon.stop();
    await standIn.close();
  }
});

test('run: a configuration error is one JSON fatal line and exit 1, before anything is touched', async () => {
  const lines: string[] = [];
  const code = await runAnchorDaemon({
    env: { ANCHORD_LABEL_SELECTOR: 'a=1,a=2' },
    write: (line) => lines.push(line),
    signal: new AbortController().signal,
    kernel: {
      apply: () => assert.fail('nft must not run'),
      flush: () => assert.fail('conntrack must not run'),
    },
  });
  assert.equal(code, 1);
  assert.equal(lines.length, 1);
  const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
  assert.equal(line.level, 'ERROR');
  assert.equal(line.msg, 'fatal');
  assert.equal(
    line.err,
    'label selector has duplicate key "a" with conflicting values "1" and "2"',
  );
  assert.equal(line.env, 'ANCHORD_LABEL_SELECTOR');
});

test('run: start-up lines, health endpoints, metrics, and a signal stops with exit 0', async () => {
  const standIn = await startStandIn([
    anchor(),
    fake('a', { role: 'a', 'anchord.expose': 'tcp/80' }, 'transit', '172.20.0.2'),
  ]);
  const lines: Record<string, unknown>[] = [];
  const controller = new AbortController();
  const kernel = new RecordingKernel();
  let port = 0;
  const done = runAnchorDaemon({
    env: {
      ANCHORD_LABEL_SELECTOR: 'role=a',
      ANCHORD_PROJECT: 'ix-authentik',
      ANCHORD_METRICS_ADDR: '127.0.0.1:0',
      ANCHORD_EXT_IFACE: 'lo',
      DOCKER_HOST: `unix://${standIn.socketPath}`,
    },
    write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
    signal: controller.signal,
    kernel,
    discovery: {
      // The host is not a container: pin the anchor's identity, keep the real adapter for the rest.
      findSelf: async () => ({ id: 'anchor-0123456789abcdef', name: 'anchor', networks: [] }),
      snapshot: (id, scope) =>
        new DockerDiscovery({ kind: 'unix', socketPath: standIn.socketPath }).snapshot(id, scope),
      watch: (scope, onEvent, onEnd) =>
        new DockerDiscovery({ kind: 'unix', socketPath: standIn.socketPath }).watch(
          scope,
          onEvent,
          onEnd,
        ),
    },
    onListening: (p) => (port = p),
  });
  try {
    await until('the first reconcile', () => lines.some((l) => l.msg === 'reconciled'));
    assert.deepEqual(
      lines.slice(0, 2).map((l) => [l.level, l.msg]),
      [
        ['WARN', 'ANCHORD_LABEL_SELECTOR set; ANCHORD_PROJECT ignored'],
        ['INFO', 'backend label selector active'],
      ],
    );
    assert.equal(lines[0]?.ignored_project, 'ix-authentik');
    assert.equal(lines[1]?.selector, 'role=a');
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(await health.text(), 'ok\n');
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(await ready.text(), 'ready\n');
    const metricsText = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(metricsText, /anchord_dnat_entries\{family="v4",proto="tcp"\} 1/);
    assert.match(metricsText, /anchord_reconcile_total\{result="ok"\} 1/);
    assert.doesNotMatch(
      metricsText,
      /172\.20\.0\.2|"a"/,
      'metric labels carry no addresses or names',
    );
  } finally {
    controller.abort('SIGTERM');
    assert.equal(await done, 0);
    await standIn.close();
  }
  assert.ok(
    lines.some((l) => l.msg === 'signal received, shutting down' && l.signal === 'SIGTERM'),
  );
  assert.match(kernel.scripts.at(-1) as string, /delete table ip6 anchord_v6/);
});

test('readyz is 503 with the reasons before the first reconcile', async () => {
  const { startHttpServer } = await import('../../src/anchor/io/http-server.js');
  const metrics = new AnchorMetrics();
  const { server, port } = await startHttpServer(
    { host: '127.0.0.1', port: 0 },
    metrics.registry,
    () => ({ tables_installed: false, reconciled: false }),
  );
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(res.status, 503);
    assert.equal(await res.text(), 'tables_installed: false\nreconciled: false\n');
    assert.equal((await fetch(`http://127.0.0.1:${port}/nope`)).status, 404);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

// The daemon when the kernel side fails: nft refusing a script (logged, retried, not ready until
// it succeeds), nft or conntrack missing, and a metrics address that cannot be bound. The
// kernel adapter under test is the real one (NftCli) pointed at failing or absent programs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { NftCli } from '../../src/anchor/io/nft.js';
import type { DiscoveryPort } from '../../src/anchor/io/docker-discovery.js';
import type { KernelPort } from '../../src/anchor/io/nft.js';
import { AnchorDaemon, loadConfig, runAnchorDaemon } from '../../src/anchor/index.js';
import type { ConntrackFlush, Snapshot } from '../../src/anchor/index.js';
import { AnchorMetrics } from '../../src/anchor/metrics.js';
import { createLogger } from '../../src/anchor/run.js';
import { container, snapshot } from './helpers.js';

const backendAt = (ipv4: string): Snapshot =>
  snapshot([
    container('a', { role: 'a', 'anchord.expose': 'tcp/80' }, [{ name: 'transit', ipv4 }]),
  ]);

/** Discovery returning whatever snapshot the test sets. */
function discoveryOf(state: { snapshot: Snapshot }): DiscoveryPort {
  return {
    findSelf: async () => state.snapshot.self,
    snapshot: async () => state.snapshot,
    watch: async () => ({ stop: () => undefined }),
  };
}

function daemonWith(kernel: KernelPort, state: { snapshot: Snapshot }) {
  const lines: Record<string, unknown>[] = [];
  const metrics = new AnchorMetrics();
  const { config } = loadConfig({ ANCHORD_LABEL_SELECTOR: 'role=a', ANCHORD_METRICS_ADDR: '' });
  const daemon = new AnchorDaemon(config, {
    discovery: discoveryOf(state),
    kernel,
    interfaces: async () => new Map(),
    logger: createLogger('debug', (line) =>
      lines.push(JSON.parse(line) as Record<string, unknown>),
    ),
    metrics,
    backoff: { minMs: 20, maxMs: 40 },
  });
  return { daemon, lines, metrics };
}

async function until(what: string, check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('nft refusing the script: error logged, not ready, retried until it applies', async () => {
  const applied: string[] = [];
  let refuse = true;
  // `false` stands in for an nft that rejects the script (exit 1), through the real adapter.
  const refusing = new NftCli('false');
  const kernel: KernelPort = {
    apply: async (script) => {
      if (refuse) return refusing.apply(script);
      applied.push(script);
    },
    flush: async () => 0,
  };
  const { daemon, lines, metrics } = daemonWith(kernel, { snapshot: backendAt('172.20.0.2') });
  try {
    await daemon.start();
    const failed = lines.filter((l) => l.msg === 'nft apply failed');
    assert.equal(failed.length, 1);
    assert.equal(failed[0]?.level, 'ERROR');
    assert.match(String(failed[0]?.err), /^nft -f failed \(exit 1\)/);
    assert.deepEqual(daemon.readiness(), { tablesInstalled: false, reconciled: false });
    assert.equal(lines.filter((l) => l.msg === 'reconciled').length, 0);
    assert.match(await metrics.registry.metrics(), /anchord_reconcile_total\{result="error"\} 1/);
    refuse = false;
    await until('the retry to apply', () => applied.length === 1);
    await until('readiness', () => daemon.readiness().reconciled);
    assert.match(applied[0] as string, /80 : 172\.20\.0\.2 \. 80/);
    assert.deepEqual(daemon.readiness(), { tablesInstalled: true, reconciled: true });
  } finally {
    await daemon.stop();
  }
});

test('nft missing: one fatal line with the fix, exit 1, nothing installed', async () => {
  const { daemon, lines } = daemonWith(new NftCli('/nonexistent/nft', '/nonexistent/conntrack'), {
    snapshot: backendAt('172.20.0.2'),
  });
  await daemon.start();
  assert.equal(await daemon.done, 1);
  const fatal = lines.filter((l) => l.msg === 'fatal');
  assert.equal(fatal.length, 1);
  assert.equal(fatal[0]?.msg, 'fatal');
  assert.equal(fatal[0]?.code, 'ANCHOR_TOOL_MISSING');
  assert.equal(fatal[0]?.hint, 'install nftables in the anchor image');
  assert.equal(daemon.readiness().tablesInstalled, false);
});

test('conntrack missing: the new rules still apply; a warning says the old flows were not cut', async () => {
  const applied: string[] = [];
  const noConntrack = new NftCli('nft', '/nonexistent/conntrack');
  const kernel: KernelPort = {
    apply: async (script) => void applied.push(script),
    flush: (flush: ConntrackFlush) => noConntrack.flush(flush),
  };
  const state = { snapshot: backendAt('172.20.0.2') };
  const { daemon, lines } = daemonWith(kernel, state);
  try {
    await daemon.start();
    state.snapshot = backendAt('172.20.0.7');
    const outcome = await daemon.reconcileNow('event');
    assert.equal(outcome?.result, 'ok');
    assert.equal(outcome?.conntrackFlushed, 0);
    assert.equal(applied.length, 2);
    assert.match(applied[1] as string, /80 : 172\.20\.0\.7 \. 80/);
    const warned = lines.filter((l) => l.msg === 'conntrack flush failed');
    assert.equal(warned.length, 1);
    assert.equal(warned[0]?.level, 'WARN');
    assert.equal(warned[0]?.family, 'v4');
    assert.match(String(warned[0]?.err), /cannot run conntrack/);
    assert.equal(lines.filter((l) => l.msg === 'fatal').length, 0);
  } finally {
    await daemon.stop();
  }
});

test('run: a metrics address already in use is one fatal line and exit 1, before any nft call', async () => {
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const address = busy.address();
  assert.ok(address !== null && typeof address === 'object');
  const lines: Record<string, unknown>[] = [];
  try {
    const code = await runAnchorDaemon({
      env: {
        ANCHORD_LABEL_SELECTOR: 'role=a',
        ANCHORD_METRICS_ADDR: `127.0.0.1:${address.port}`,
      },
      write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
      signal: new AbortController().signal,
      discovery: discoveryOf({ snapshot: backendAt('172.20.0.2') }),
      kernel: {
        apply: () => assert.fail('nft must not run'),
        flush: () => assert.fail('conntrack must not run'),
      },
    });
    assert.equal(code, 1);
    const fatal = lines.filter((l) => l.msg === 'fatal');
    assert.equal(fatal.length, 1);
    assert.equal(fatal[0]?.code, 'ANCHOR_METRICS_LISTEN');
    assert.equal(fatal[0]?.env, 'ANCHORD_METRICS_ADDR');
    assert.match(String(fatal[0]?.err), /EADDRINUSE/);
  } finally {
    await new Promise((resolve) => busy.close(resolve));
  }
});

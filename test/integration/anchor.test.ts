/**
 * The anchor on a real Docker Engine and real nftables (seed 000's integration scenarios).
 *
 * Topology (all created here, removed in `after`):
 *
 *   dmz      bridge, Docker masquerade off (stands in for the outside macvlan)
 *            client .50 — anchor-a .10 — anchor-b .11 — anchor-l .12
 *   transit  bridge: the anchors' second leg (.10/.11/.12) and the backends
 *            a .21 (role=A) · b .22 (role=B) · c .23 (role=C) · legacy .24 (project label)
 *
 * Each anchor runs `labelwise anchor run` from the sources, inside its container's network
 * and UTS namespaces (nsenter), with the host's node, nft and conntrack. Backends route replies
 * through their anchor (default route via its transit address), since the client's source
 * address is preserved. Traffic goes only to these containers; every wait is bounded.
 */
import { after, before, describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readDnatMap } from '../../src/anchor/adapters/nft.js';
import type { KernelMapElement } from '../../src/anchor/adapters/nft.js';
import { Lab, findDockerd, must, sh, unavailableReason, waitFor } from './docker-env.js';

const reason = unavailableReason();

interface Anchor {
  readonly part: string;
  readonly dmzIp: string;
  readonly transitIp: string;
  pid: string;
  process: ChildProcess;
  readonly lines: Record<string, unknown>[];
  exitCode: Promise<number | null>;
}

describe('anchor on a real Docker Engine and nftables', { skip: reason, timeout: 600_000 }, () => {
  const lab = new Lab();
  const k = 100 + (process.pid % 100);
  const net = (n: number, host: number): string => `10.${k}.${n}.${host}`;
  let dmz = '';
  let transit = '';
  const anchors = new Map<string, Anchor>();

  const anchorMap = async (name: string): Promise<KernelMapElement[] | undefined> =>
    readDnatMap('ipv4', 'tcp', ['nsenter', '-t', (anchors.get(name) as Anchor).pid, '-n']);

  function startAnchor(part: string, dmzHost: number, env: Record<string, string>): void {
    const dmzIp = net(1, dmzHost);
    const transitIp = net(2, dmzHost);
    lab.run(
      part,
      [
        '--network',
        dmz,
        '--ip',
        dmzIp,
        '--cap-add',
        'NET_ADMIN',
        '--sysctl',
        'net.ipv4.ip_forward=1',
      ],
      ['sleep', '3600'],
    );
    must('docker', ['network', 'connect', '--ip', transitIp, transit, lab.name(part)]);
    const anchor: Anchor = {
      part,
      dmzIp,
      transitIp,
      pid: lab.pid(part),
      process: undefined as unknown as ChildProcess,
      lines: [],
      exitCode: Promise.resolve(null),
    };
    launch(anchor, env);
    anchors.set(part, anchor);
  }

  function launch(anchor: Anchor, env: Record<string, string>): void {
    const child = lab.spawn(
      'nsenter',
      [
        '-t',
        anchor.pid,
        '-n',
        '-u',
        '--',
        process.execPath,
        '--import',
        'tsx',
        'test/integration/anchor-entry.ts',
      ],
      {
        PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
        HOME: process.env.HOME ?? '/root',
        ANCHORD_EXT_NETWORK: dmz,
        ANCHORD_POLL_INTERVAL: '2s',
        ANCHORD_METRICS_ADDR: '',
        ANCHORD_LOG_LEVEL: 'debug',
        ...env,
      },
    );
    let buffer = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let at: number;
      while ((at = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        try {
          anchor.lines.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          anchor.lines.push({ msg: 'unparsed', line });
        }
      }
    });
    child.stderr
      ?.setEncoding('utf8')
      .on('data', (chunk: string) => anchor.lines.push({ msg: 'stderr', text: chunk }));
    anchor.process = child;
    anchor.exitCode = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  function backend(
    part: string,
    host: number,
    labels: Record<string, string>,
    content: string,
  ): void {
    const labelArgs = Object.entries(labels).flatMap(([key, value]) => [
      '--label',
      `${key}=${value}`,
    ]);
    lab.run(
      part,
      ['--network', transit, '--ip', net(2, host), '--cap-add', 'NET_ADMIN', ...labelArgs],
      [
        'sh',
        '-c',
        `mkdir -p /www && echo ${content} > /www/index.html && exec httpd -f -p 80 -h /www`,
      ],
    );
  }

  function routeVia(part: string, anchor: string): void {
    must('docker', [
      'exec',
      lab.name(part),
      'ip',
      'route',
      'replace',
      'default',
      'via',
      (anchors.get(anchor) as Anchor).transitIp,
    ]);
  }

  function fetchThrough(anchor: string, port = 80): string {
    const url = `http://${(anchors.get(anchor) as Anchor).dmzIp}:${port}/`;
    const result = sh(
      'docker',
      ['exec', lab.name('client'), 'timeout', '5', 'wget', '-q', '-O', '-', url],
      20_000,
    );
    return result.code === 0
      ? result.stdout.trim()
      : `fetch failed (${result.code}): ${result.stderr.trim()}`;
  }

  const reconciles = (anchor: string): number =>
    (anchors.get(anchor) as Anchor).lines.filter((l) => l.msg === 'reconciled').length;
  const logs = (anchor: string): string =>
    (anchors.get(anchor) as Anchor).lines.map((l) => JSON.stringify(l)).join('\n');

  before(async () => {
    dmz = lab.network('dmz', `10.${k}.1.0/24`, [
      '-o',
      'com.docker.network.bridge.enable_ip_masquerade=false',
    ]);
    transit = lab.network('transit', `10.${k}.2.0/24`);
    backend('a', 21, { role: 'A', 'anchord.expose': 'tcp/80' }, 'backend-A');
    backend('b', 22, { role: 'B', 'anchord.expose': 'tcp/80' }, 'backend-B');
    backend('c', 23, { role: 'C', 'anchord.expose': 'tcp/80' }, 'backend-C');
    backend(
      'legacy',
      24,
      { 'com.docker.compose.project': lab.name('legacy'), 'anchord.expose': 'tcp/80' },
      'backend-legacy',
    );
    lab.run('client', ['--network', dmz, '--ip', net(1, 50)], ['sleep', '3600']);
    startAnchor('anchor-a', 10, { ANCHORD_LABEL_SELECTOR: 'role=A' });
    startAnchor('anchor-b', 11, { ANCHORD_LABEL_SELECTOR: 'role=B' });
    startAnchor('anchor-l', 12, { ANCHORD_PROJECT: lab.name('legacy') });
    routeVia('a', 'anchor-a');
    routeVia('b', 'anchor-b');
    routeVia('legacy', 'anchor-l');
    for (const name of anchors.keys()) {
      await waitFor(
        `${name} to install its tables`,
        async () => ((await anchorMap(name))?.length ?? 0) > 0,
        30_000,
        200,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${logs(name)}`);
      });
    }
  });

  after(async () => {
    await lab.cleanup();
  });

  it('(1, 7) each anchor holds only its backends; C is ignored; the legacy project mode works; HTTP reaches the right backend', async () => {
    assert.deepEqual(await anchorMap('anchor-a'), [
      { port: 80, address: net(2, 21), backendPort: 80 },
    ]);
    assert.deepEqual(await anchorMap('anchor-b'), [
      { port: 80, address: net(2, 22), backendPort: 80 },
    ]);
    assert.deepEqual(await anchorMap('anchor-l'), [
      { port: 80, address: net(2, 24), backendPort: 80 },
    ]);
    assert.equal(fetchThrough('anchor-a'), 'backend-A');
    assert.equal(fetchThrough('anchor-b'), 'backend-B');
    assert.equal(fetchThrough('anchor-l'), 'backend-legacy');
    assert.ok(
      anchors
        .get('anchor-a')
        ?.lines.some((l) => l.msg === 'backend label selector active' && l.selector === 'role=A'),
    );
  });

  it('(1) no reconcile clobbers another anchor: maps are unchanged after several poll cycles', async () => {
    const start = { a: reconciles('anchor-a'), b: reconciles('anchor-b') };
    await waitFor(
      'two more reconciles on both anchors',
      () => reconciles('anchor-a') >= start.a + 2 && reconciles('anchor-b') >= start.b + 2,
      15_000,
      100,
    );
    assert.deepEqual(await anchorMap('anchor-a'), [
      { port: 80, address: net(2, 21), backendPort: 80 },
    ]);
    assert.deepEqual(await anchorMap('anchor-b'), [
      { port: 80, address: net(2, 22), backendPort: 80 },
    ]);
    const applied = (anchors.get('anchor-a') as Anchor).lines.filter(
      (l) => l.msg === 'reconciled' && l.applied === true,
    ).length;
    assert.equal(applied, 1, 'nothing changed, so nft ran once');
  });

  it('(2) a project-less docker run backend matching the selector is mapped within one reconcile and reachable', async () => {
    const before = reconciles('anchor-a');
    backend('spawned', 25, { role: 'A', 'anchord.expose': 'tcp/8080:80' }, 'spawned-thing');
    const map = await waitFor(
      'the spawned backend in the kernel map',
      async () => {
        const m = await anchorMap('anchor-a');
        return m?.some((e) => e.port === 8080) === true ? m : undefined;
      },
      5000,
    );
    assert.deepEqual(map, [
      { port: 80, address: net(2, 21), backendPort: 80 },
      { port: 8080, address: net(2, 25), backendPort: 80 },
    ]);
    assert.ok(reconciles('anchor-a') >= before + 1);
    routeVia('spawned', 'anchor-a');
    assert.equal(fetchThrough('anchor-a', 8080), 'spawned-thing');
  });

  it('(3) a backend recreated with a new address is remapped within 5 s and its old connections are cut', async () => {
    const pidA = (anchors.get('anchor-a') as Anchor).pid;
    const flows = (address: string): number => {
      const out = sh('nsenter', [
        '-t',
        pidA,
        '-n',
        'conntrack',
        '-L',
        '-f',
        'ipv4',
        '-p',
        'tcp',
        '-r',
        address,
      ]);
      return out.stdout.split('\n').filter((l) => l.includes(`src=${address}`)).length;
    };
    // An open connection through the anchor to the old backend (httpd waits for the request).
    sh('docker', [
      'exec',
      '-d',
      lab.name('client'),
      'sh',
      '-c',
      `sleep 30 | nc ${(anchors.get('anchor-a') as Anchor).dmzIp} 80`,
    ]);
    await waitFor('a tracked connection to the old backend', () => flows(net(2, 21)) > 0, 5000);
    lab.remove('a');
    backend('a', 31, { role: 'A', 'anchord.expose': 'tcp/80' }, 'backend-A2');
    await waitFor(
      'the new address in the kernel map',
      async () =>
        (await anchorMap('anchor-a'))?.some((e) => e.port === 80 && e.address === net(2, 31)) ===
        true,
      5000,
    );
    await waitFor('the old flows to be flushed', () => flows(net(2, 21)) === 0, 2000);
    assert.ok(
      (anchors.get('anchor-a') as Anchor).lines.some(
        (l) =>
          l.msg === 'reconciled' &&
          typeof l.conntrack_flushed === 'number' &&
          l.conntrack_flushed > 0,
      ),
      logs('anchor-a'),
    );
    routeVia('a', 'anchor-a');
    assert.equal(fetchThrough('anchor-a'), 'backend-A2');
  });

  it('(6) hostile label values change nothing but a warning', async () => {
    const mapBefore = await anchorMap('anchor-a');
    const rulesetBefore = must('nsenter', [
      '-t',
      (anchors.get('anchor-a') as Anchor).pid,
      '-n',
      'nft',
      'list',
      'ruleset',
    ]);
    backend('evil1', 41, { role: 'A', 'anchord.expose': 'tcp/81;flush ruleset' }, 'x');
    backend('evil2', 42, { role: 'A', 'anchord.expose': 'tcp/82\nflush ruleset' }, 'x');
    backend('evil3', 43, { role: 'A', 'anchord.expose': `tcp/83,${'9'.repeat(20_000)}` }, 'x');
    backend(
      'evil4',
      44,
      { role: 'A', 'anchord.expose': 'tcp/84', 'anchord.expose.v6': '"; flush ruleset' },
      'x',
    );
    await waitFor(
      'four invalid-label warnings',
      () =>
        (anchors.get('anchor-a') as Anchor).lines.filter((l) => l.msg === 'invalid expose labels')
          .length >= 4,
      10_000,
    );
    assert.deepEqual(await anchorMap('anchor-a'), mapBefore);
    assert.equal(
      must('nsenter', [
        '-t',
        (anchors.get('anchor-a') as Anchor).pid,
        '-n',
        'nft',
        'list',
        'ruleset',
      ]),
      rulesetBefore,
    );
    for (const part of ['evil1', 'evil2', 'evil3', 'evil4']) lab.remove(part);
  });

  it('(4) dockerd restarted while the anchor runs: the rules stay and the anchor recovers', async (t) => {
    const dockerd = findDockerd();
    const cmdline = dockerd?.cmdline ?? [];
    if (!cmdline.includes('--live-restore')) {
      t.skip(
        'dockerd does not run with --live-restore (its restart would stop the test containers); .ci/setup-docker.sh starts it that way',
      );
      return;
    }
    if (process.env.LABELWISE_TEST_RESTART_DOCKERD === '0') {
      t.skip('LABELWISE_TEST_RESTART_DOCKERD=0');
      return;
    }
    const mapBefore = await anchorMap('anchor-a');
    const dockerdPid = (dockerd as { pid: number }).pid;
    process.kill(dockerdPid, 'SIGTERM');
    try {
      await waitFor('dockerd to stop', () => findDockerd()?.pid !== dockerdPid, 30_000, 100);
      await waitFor(
        'the anchor to notice',
        () => /docker event stream lost|docker unavailable/.test(logs('anchor-a')),
        10_000,
        100,
      );
      assert.deepEqual(await anchorMap('anchor-a'), mapBefore, 'rules stay while Docker is down');
      assert.equal(
        (anchors.get('anchor-a') as Anchor).process.exitCode,
        null,
        'the anchor keeps running',
      );
    } finally {
      const restarted = spawn(cmdline[0] as string, cmdline.slice(1), {
        detached: true,
        stdio: 'ignore',
      });
      restarted.unref();
      await waitFor(
        'dockerd to answer again',
        () => sh('docker', ['info', '--format', '{{.ServerVersion}}'], 10_000).code === 0,
        60_000,
        500,
      );
    }
    backend('after-restart', 26, { role: 'A', 'anchord.expose': 'tcp/9090:80' }, 'after-restart');
    await waitFor(
      'the anchor to map a backend started after the restart',
      async () => (await anchorMap('anchor-a'))?.some((e) => e.port === 9090) === true,
      40_000,
      200,
    );
  });

  it('(5) SIGTERM removes the tables and exits 0', async () => {
    const anchor = anchors.get('anchor-b') as Anchor;
    anchor.process.kill('SIGTERM');
    const code = await Promise.race([
      anchor.exitCode,
      new Promise((resolve) => setTimeout(() => resolve('timeout'), 15_000)),
    ]);
    assert.equal(code, 0, logs('anchor-b'));
    assert.equal(await anchorMap('anchor-b'), undefined);
    assert.notEqual(
      sh('nsenter', ['-t', anchor.pid, '-n', 'nft', 'list', 'table', 'ip6', 'anchord_v6']).code,
      0,
    );
    assert.ok(anchor.lines.some((l) => l.msg === 'signal received, shutting down'));
  });
});

if (reason !== undefined) {
  // A skipped suite is not counted as a skipped test; this makes the skip and its reason count.
  test(
    'anchor integration scenarios (1)-(7) on a real Docker Engine',
    { skip: reason },
    () => undefined,
  );
}

/**
 * The anchor on a real Docker Engine and real nftables (the integration scenarios of docs/anchor.md).
 *
 * Topology (all created here, removed in `after`):
 *
 *   dmz      dual-stack bridge, Docker masquerade off (stands in for the outside macvlan)
 *            client .50 — anchor-a .10 — anchor-b .11 — anchor-l .12
 *   transit  dual-stack bridge: the anchors' second leg (.10/.11/.12) and the backends
 *            a .21 (role=A) · b .22 (role=B) · c .23 (role=C) · legacy .24 (project label)
 *
 * Each anchor runs `labelwise anchor run` from the sources in a container of the busybox test
 * image, with the host's node, nft, conntrack and libraries mounted read-only, the Docker socket's
 * directory mounted, and `network_mode: container:<holder>` (the holder owns the namespace the
 * anchor programs). The test reads the kernel maps and conntrack from the host with nsenter.
 * Backends route replies through their anchor (default route via its transit address), since
 * the client's source address is preserved. Traffic goes only to these containers; every wait
 * is bounded.
 *
 * Scenarios (1)-(7) are the issue's; (8) IPv6 end to end, (9) the health and metrics endpoints
 * of a running anchor (anchor-l serves them on its loopback), (10) hairpin and egress
 * masquerade.
 */
import { after, before, describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { readDnatMap } from '../../src/anchor/io/nft.js';
import type { KernelMapElement } from '../../src/anchor/io/nft.js';
import {
  Lab,
  findDockerd,
  restartDockerd,
  must,
  requirePrerequisites,
  sh,
  unavailableReason,
  waitFor,
} from './docker-env.js';

const reason = requirePrerequisites('anchor integration', unavailableReason());
/** Port of the health and metrics server of the anchor that serves one (`anchor-l`). */
const METRICS_PORT = 9464;

interface Anchor {
  readonly part: string;
  readonly dmzIp: string;
  readonly transitIp: string;
  /** Pid of the holder container, whose network namespace the anchor runs in. */
  readonly pid: string;
  /** Name of the container the anchor process runs in. */
  readonly container: string;
  readonly logFile: string;
}

function dockerSocket(): string {
  const host = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  return host.startsWith('unix://') ? host.slice('unix://'.length) : '/var/run/docker.sock';
}

/**
 * Bind mounts that let the busybox image run the host's node, nft and conntrack (read-only), the
 * repository, the Docker socket, and a log directory.
 */
function anchorMounts(logDir: string): string[] {
  const mounts = [
    `${process.cwd()}:/app:ro`,
    `${logDir}:/logs`,
    `${realpathSync(process.execPath)}:/usr/local/bin/node:ro`,
  ];
  for (const tool of ['nft', 'conntrack']) {
    const path = sh('sh', ['-c', `command -v ${tool}`]).stdout.trim();
    mounts.push(`${realpathSync(path)}:/usr/local/sbin/${tool}:ro`);
  }
  for (const dir of ['/lib', '/lib64', '/usr/lib', '/usr/lib64'])
    if (existsSync(dir)) mounts.push(`${dir}:${dir}:ro`);
  // The socket's directory, not the socket file: dockerd recreates the socket when it restarts
  // (scenario 4), and a file bind mount would keep pointing at the old one.
  mounts.push(`${dirname(dockerSocket())}:/docker-run:ro`);
  return mounts.flatMap((m) => ['-v', m]);
}

describe('anchor on a real Docker Engine and nftables', { skip: reason, timeout: 600_000 }, () => {
  const lab = new Lab();
  const k = 100 + (process.pid % 100);
  const net = (n: number, host: number): string => `10.${k}.${n}.${host}`;
  const net6 = (n: number, host: number): string => `fd42:${k}:${n}::${host}`;
  let dmz = '';
  let transit = '';
  let logDir = '';
  const anchors = new Map<string, Anchor>();

  const anchorMap = async (name: string): Promise<KernelMapElement[] | undefined> =>
    readDnatMap('ipv4', 'tcp', ['nsenter', '-t', (anchors.get(name) as Anchor).pid, '-n']);

  /**
   * An anchor as a Compose sidecar would run it: a holder container owns the network namespace
   * (attached to dmz and transit), and the anchor runs in its own container with
   * `network_mode: container:<holder>` — so it finds itself by MAC address, and its netns (with
   * the tables) outlives the anchor process for the SIGTERM check.
   */
  function startAnchor(part: string, host: number, env: Record<string, string>): void {
    const dmzIp = net(1, host);
    const transitIp = net(2, host);
    lab.run(
      part,
      [
        '--network',
        dmz,
        '--ip',
        dmzIp,
        '--ip6',
        net6(1, host),
        '--cap-add',
        'NET_ADMIN',
        '--sysctl',
        'net.ipv4.ip_forward=1',
        '--sysctl',
        'net.ipv6.conf.all.forwarding=1',
      ],
      ['sleep', '3600'],
    );
    must('docker', [
      'network',
      'connect',
      '--ip',
      transitIp,
      '--ip6',
      net6(2, host),
      transit,
      lab.name(part),
    ]);
    const settings: Record<string, string> = {
      PATH: '/usr/local/sbin:/usr/local/bin:/bin',
      HOME: '/tmp',
      ANCHORD_EXT_NETWORK: dmz,
      ANCHORD_POLL_INTERVAL: '2s',
      ANCHORD_METRICS_ADDR: '',
      ANCHORD_LOG_LEVEL: 'debug',
      LABELWISE_TEST_LOG: `/logs/${part}.log`,
      DOCKER_HOST: `unix:///docker-run/${basename(dockerSocket())}`,
      ...env,
    };
    lab.run(
      `${part}-proc`,
      [
        '--network',
        `container:${lab.name(part)}`,
        '--cap-add',
        'NET_ADMIN',
        '-w',
        '/app',
        ...anchorMounts(logDir),
        ...Object.entries(settings).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
      ],
      ['node', '--import', 'tsx', 'test/integration/anchor-entry.ts'],
    );
    anchors.set(part, {
      part,
      dmzIp,
      transitIp,
      pid: lab.pid(part),
      container: lab.name(`${part}-proc`),
      logFile: join(logDir, `${part}.log`),
    });
  }

  function lines(anchor: string): Record<string, unknown>[] {
    const file = (anchors.get(anchor) as Anchor).logFile;
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          return { msg: 'unparsed', line };
        }
      });
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
      [
        '--network',
        transit,
        '--ip',
        net(2, host),
        '--ip6',
        net6(2, host),
        '--cap-add',
        'NET_ADMIN',
        ...labelArgs,
      ],
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

  /**
   * GET on the anchor's health/metrics server from inside its namespace (`docker exec` into the
   * anchor's container, with the host's node), bounded in time.
   */
  function httpGet(anchor: string, path: string): { status: number; body: string } {
    const script =
      `fetch('http://127.0.0.1:${METRICS_PORT}${path}', { signal: AbortSignal.timeout(5000) })` +
      '.then(async (r) => process.stdout.write(JSON.stringify({ status: r.status, body: await r.text() })))' +
      '.catch((e) => { process.stderr.write(String(e)); process.exitCode = 2; });';
    const out = must(
      'docker',
      ['exec', (anchors.get(anchor) as Anchor).container, 'node', '-e', script],
      20_000,
    );
    return JSON.parse(out) as { status: number; body: string };
  }

  const reconciles = (anchor: string): number =>
    lines(anchor).filter((l) => l.msg === 'reconciled').length;
  const logs = (anchor: string): string =>
    `${lines(anchor)
      .map((l) => JSON.stringify(l))
      .join(
        '\n',
      )}\n${sh('docker', ['logs', '--tail', '20', (anchors.get(anchor) as Anchor).container]).stderr}`;

  before(async () => {
    logDir = mkdtempSync(join(tmpdir(), 'labelwise-anchor-logs-'));
    dmz = lab.network('dmz', `10.${k}.1.0/24`, [
      '--ipv6',
      '--subnet',
      `${net6(1, 0)}/64`,
      '-o',
      'com.docker.network.bridge.enable_ip_masquerade=false',
    ]);
    transit = lab.network('transit', `10.${k}.2.0/24`, ['--ipv6', '--subnet', `${net6(2, 0)}/64`]);
    backend('a', 21, { role: 'A', 'anchord.expose': 'tcp/80' }, 'backend-A');
    backend('b', 22, { role: 'B', 'anchord.expose': 'tcp/80' }, 'backend-B');
    backend('c', 23, { role: 'C', 'anchord.expose': 'tcp/80' }, 'backend-C');
    backend(
      'legacy',
      24,
      { 'com.docker.compose.project': lab.name('legacy'), 'anchord.expose': 'tcp/80' },
      'backend-legacy',
    );
    lab.run(
      'client',
      ['--network', dmz, '--ip', net(1, 50), '--ip6', net6(1, 50)],
      ['sleep', '3600'],
    );
    startAnchor('anchor-a', 10, { ANCHORD_LABEL_SELECTOR: 'role=A' });
    startAnchor('anchor-b', 11, { ANCHORD_LABEL_SELECTOR: 'role=B' });
    // The legacy anchor also serves /healthz, /readyz and /metrics (on its loopback only).
    startAnchor('anchor-l', 12, {
      ANCHORD_PROJECT: lab.name('legacy'),
      ANCHORD_METRICS_ADDR: `127.0.0.1:${METRICS_PORT}`,
    });
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
    if (logDir !== '') rmSync(logDir, { recursive: true, force: true });
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
      lines('anchor-a').some(
        (l) => l.msg === 'backend label selector active' && l.selector === 'role=A',
      ),
    );
  });

  it('(9) a running anchor serves /healthz, /readyz and /metrics with its real state', () => {
    assert.deepEqual(httpGet('anchor-l', '/healthz'), { status: 200, body: 'ok\n' });
    assert.deepEqual(httpGet('anchor-l', '/readyz'), { status: 200, body: 'ready\n' });
    const metrics = httpGet('anchor-l', '/metrics');
    assert.equal(metrics.status, 200);
    // The legacy backend is dual-stack: one tcp entry per family, nothing on udp.
    for (const [family, proto, count] of [
      ['v4', 'tcp', 1],
      ['v6', 'tcp', 1],
      ['v4', 'udp', 0],
      ['v6', 'udp', 0],
    ] as const) {
      assert.match(
        metrics.body,
        new RegExp(`^anchord_dnat_entries\\{family="${family}",proto="${proto}"\\} ${count}$`, 'm'),
      );
    }
    // anchord counts every successful reconcile as ok, applied or not.
    assert.match(metrics.body, /^anchord_reconcile_total\{result="ok"\} [1-9]\d*$/m);
    assert.match(metrics.body, /^anchord_reconcile_total\{result="error"\} 0$/m);
    assert.match(metrics.body, /^anchord_docker_events_total\{source="start"\} 1$/m);
    assert.match(metrics.body, /^anchord_reconcile_duration_seconds_count [1-9]\d*$/m);
    assert.match(metrics.body, /^anchord_process_resident_memory_bytes [1-9]\d*$/m);
    for (const secret of [net(2, 24), net6(2, 24), lab.name('legacy')])
      assert.ok(!metrics.body.includes(secret), `metrics must not carry ${secret}`);
    assert.equal(httpGet('anchor-l', '/nope').status, 404);
  });

  it('(10) hairpin: a container routed through the anchor reaches its outside address; egress leaving on the outside is masqueraded', () => {
    const anchorA = anchors.get('anchor-a') as Anchor;
    // C is claimed by no anchor; routed through anchor-a, it sends to anchor-a's outside address
    // and arrives on the transit side. Without the hairpin masquerade, A would answer C directly
    // from its own address and the fetch would fail.
    routeVia('c', 'anchor-a');
    const hairpin = sh(
      'docker',
      ['exec', lab.name('c'), 'timeout', '5', 'wget', '-q', '-O', '-', `http://${anchorA.dmzIp}/`],
      20_000,
    );
    assert.equal(hairpin.stdout.trim(), 'backend-A', hairpin.stderr);
    // A (default route via anchor-a) opens a connection to the client on the outside network:
    // the client must see the anchor's outside address, not A's.
    must('docker', [
      'exec',
      lab.name('client'),
      'sh',
      '-c',
      "mkdir -p /peer/cgi-bin && printf '#!/bin/sh\\necho Content-Type: text/plain\\necho\\necho $REMOTE_ADDR\\n' > /peer/cgi-bin/ip && chmod +x /peer/cgi-bin/ip && httpd -p 8080 -h /peer",
    ]);
    const egress = sh(
      'docker',
      [
        'exec',
        lab.name('a'),
        'timeout',
        '5',
        'wget',
        '-q',
        '-O',
        '-',
        `http://${net(1, 50)}:8080/cgi-bin/ip`,
      ],
      20_000,
    );
    // busybox httpd reports IPv4 peers of its dual-stack socket as [::ffff:a.b.c.d].
    assert.equal(
      egress.stdout.trim().replace(/^\[(?:::ffff:)?|\]$/g, ''),
      anchorA.dmzIp,
      egress.stderr,
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
    const applied = lines('anchor-a').filter(
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
      lines('anchor-a').some(
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
      () => lines('anchor-a').filter((l) => l.msg === 'invalid expose labels').length >= 4,
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

  it('(8) IPv6: entries are mirrored to the ip6 table and reachable through the anchor IPv6 address', async () => {
    const anchor = anchors.get('anchor-b') as Anchor;
    assert.deepEqual(await readDnatMap('ipv6', 'tcp', ['nsenter', '-t', anchor.pid, '-n']), [
      { port: 80, address: net6(2, 22), backendPort: 80 },
    ]);
    must('docker', [
      'exec',
      lab.name('b'),
      'ip',
      '-6',
      'route',
      'replace',
      'default',
      'via',
      net6(2, 11),
    ]);
    const url = `http://[${net6(1, 11)}]:80/`;
    const result = sh(
      'docker',
      ['exec', lab.name('client'), 'timeout', '5', 'wget', '-q', '-O', '-', url],
      20_000,
    );
    assert.equal(result.stdout.trim(), 'backend-B', result.stderr);
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
    const anchorPid = must('docker', [
      'inspect',
      '--format',
      '{{.State.Pid}}',
      (anchors.get('anchor-a') as Anchor).container,
    ]);
    const skipped = await restartDockerd(async () => {
      await waitFor(
        'the anchor to notice',
        () =>
          lines('anchor-a').some(
            (l) =>
              l.msg === 'docker event stream lost' ||
              l.msg === 'docker unavailable; keeping last applied rules',
          ),
        10_000,
        100,
      );
      assert.deepEqual(await anchorMap('anchor-a'), mapBefore, 'rules stay while Docker is down');
      assert.ok(existsSync(`/proc/${anchorPid}`), 'the anchor keeps running');
    });
    assert.equal(skipped, undefined, 'dockerd was checked for --live-restore above');
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
    must('docker', ['kill', '--signal', 'TERM', anchor.container]);
    const state = await waitFor(
      'the anchor to exit',
      () => {
        const [running, code] = must('docker', [
          'inspect',
          '--format',
          '{{.State.Running}} {{.State.ExitCode}}',
          anchor.container,
        ]).split(' ');
        return running === 'false' ? Number(code) : undefined;
      },
      15_000,
      100,
    );
    assert.equal(state, 0, logs('anchor-b'));
    assert.equal(await anchorMap('anchor-b'), undefined);
    assert.notEqual(
      sh('nsenter', ['-t', anchor.pid, '-n', 'nft', 'list', 'table', 'ip6', 'anchord_v6']).code,
      0,
    );
    assert.ok(
      lines('anchor-b').some(
        (l) => l.msg === 'signal received, shutting down' && l.signal === 'SIGTERM',
      ),
    );
  });
});

if (reason !== undefined) {
  // A skipped suite is not counted as a skipped test; this makes the skip and its reason count.
  test(
    'anchor integration scenarios (1)-(9) on a real Docker Engine',
    { skip: reason },
    () => undefined,
  );
}

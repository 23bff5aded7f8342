// dhcp-refresh against a real DHCP server: Debian's dnsmasq, run in the network namespace of a
// container on a Docker network this test creates. The client (test/anchor/dhcp/dhcp-entry.ts)
// runs in the namespace of a second container attached to that network and to a "shared" bridge
// that holds the default route, as an anchor's bridge does. Needs root, Docker and dnsmasq; skips
// locally with the reason and fails under CI=true (test/integration/docker-env.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Lab,
  must,
  requirePrerequisites,
  sh,
  unavailableReason,
  waitFor,
} from '../../integration/docker-env.js';

function reasonToSkip(): string | undefined {
  const docker = unavailableReason();
  if (docker !== undefined) return docker;
  if (spawnSync('sh', ['-c', 'command -v dnsmasq']).status !== 0)
    return 'dnsmasq is not installed (Debian package dnsmasq-base; .ci/setup-docker.sh installs it)';
  return undefined;
}

const reason = requirePrerequisites('dhcp-refresh against dnsmasq', reasonToSkip());

/** Collects a child's output lines as they arrive. */
class Output {
  readonly lines: string[] = [];
  constructor(child: ChildProcess) {
    let partial = '';
    const take = (chunk: Buffer) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) this.lines.push(line);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
  }
  json(): Record<string, unknown>[] {
    return this.lines.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  }
  count(msg: string, match: (line: Record<string, unknown>) => boolean = () => true): number {
    return this.json().filter((l) => l.msg === msg && match(l)).length;
  }
  grep(pattern: RegExp): string[] {
    return this.lines.filter((line) => pattern.test(line));
  }
}

describe('dhcp-refresh against dnsmasq', { skip: reason, timeout: 240_000 }, () => {
  const lab = new Lab();
  const k = 40 + (process.pid % 50);
  const outside = `172.29.${k}`;
  const shared = `172.28.${k}`;
  const outside6 = `fd42:dc${k}::`;
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-dhcp-'));
  const leases = join(dir, 'leases');
  const metricsFile = join(dir, 'metrics');
  let serverNs = '';
  let clientNs = '';
  let mac = '';
  let server: ChildProcess | undefined;
  let serverLog: Output | undefined;
  let client: ChildProcess | undefined;
  let clientLog: Output | undefined;

  function inClient(args: readonly string[]): string {
    return must('nsenter', [`--net=${clientNs}`, ...args]);
  }

  function clientIface(): string {
    const links = JSON.parse(inClient(['ip', '-j', 'link', 'show'])) as {
      ifname: string;
      address?: string;
    }[];
    const link = links.find((l) => l.address === mac);
    assert.ok(link, `no interface with ${mac}`);
    return link.ifname;
  }

  function addresses(): string[] {
    const shown = JSON.parse(
      inClient(['ip', '-j', '-4', 'addr', 'show', 'dev', clientIface()]),
    ) as {
      addr_info: { local: string; prefixlen: number }[];
    }[];
    return shown.flatMap((l) => l.addr_info.map((a) => `${a.local}/${a.prefixlen}`));
  }

  function addresses6(): string[] {
    const shown = JSON.parse(
      inClient(['ip', '-j', '-6', 'addr', 'show', 'dev', clientIface(), 'scope', 'global']),
    ) as { addr_info: { local: string; prefixlen: number }[] }[];
    return shown.flatMap((l) => l.addr_info.map((a) => `${a.local}/${a.prefixlen}`));
  }

  function startServer(): void {
    if (!existsSync(leases)) writeFileSync(leases, '');
    server = lab.spawn(
      'nsenter',
      [
        `--net=${serverNs}`,
        'dnsmasq',
        '--keep-in-foreground',
        '--conf-file=/dev/null',
        '--port=0',
        '--no-resolv',
        '--no-hosts',
        '--no-ping',
        '--interface=eth0',
        '--bind-interfaces',
        '--user=root',
        '--dhcp-authoritative',
        `--dhcp-range=${outside}.200,${outside}.220,255.255.255.0,2m`,
        `--dhcp-option=option:router,${outside}.254`,
        `--dhcp-range=${outside6}100,${outside6}1ff,64,2m`,
        // Short timers so renewal is seen within seconds (dnsmasq's shortest lease is 2 min).
        '--dhcp-option=option:T1,5',
        '--dhcp-option=option:T2,8',
        `--dhcp-leasefile=${leases}`,
        `--pid-file=${join(dir, 'dnsmasq.pid')}`,
        '--log-dhcp',
        '--log-facility=-',
      ],
      { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' },
    );
    serverLog = new Output(server);
  }

  async function stopServer(): Promise<void> {
    const running = server;
    if (running === undefined || running.exitCode !== null) return;
    running.kill('SIGTERM');
    await waitFor(
      'dnsmasq to exit',
      () => running.exitCode !== null || running.signalCode !== null,
      10_000,
    );
  }

  async function scrape(): Promise<string> {
    rmSync(metricsFile, { force: true });
    client?.kill('SIGUSR1');
    return waitFor(
      'the client to write its metrics',
      () => existsSync(metricsFile) && readFileSync(metricsFile, 'utf8'),
    );
  }

  function metric(text: string, series: string): number {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    assert.ok(line, `${series} in the scrape`);
    return Number(line.slice(series.length + 1));
  }

  before(() => {
    const outsideNet = lab.network('dhcp-out', `${outside}.0/24`, [
      '--ip-range',
      `${outside}.0/25`,
      '--ipv6',
      '--subnet',
      `${outside6}/64`,
    ]);
    const sharedNet = lab.network('dhcp-shared', `${shared}.0/24`);
    lab.run(
      'dhcp-server',
      ['--network', outsideNet, '--ip', `${outside}.2`, '--ip6', `${outside6}2`],
      ['sleep', '3600'],
    );
    lab.run('dhcp-client', ['--network', sharedNet], ['sleep', '3600']);
    must('docker', ['network', 'connect', outsideNet, lab.name('dhcp-client')]);
    serverNs = `/proc/${lab.pid('dhcp-server')}/ns/net`;
    clientNs = `/proc/${lab.pid('dhcp-client')}/ns/net`;
    mac = must('docker', [
      'inspect',
      '--format',
      `{{(index .NetworkSettings.Networks "${outsideNet}").MacAddress}}`,
      lab.name('dhcp-client'),
    ]);
    // The default route on the shared bridge, as on an anchor: DHCP must still leave outside.
    inClient(['ip', 'route', 'replace', 'default', 'via', `${shared}.1`]);
  });

  after(async () => {
    await lab.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  test('no server yet: attempts fail and back off, counting errors and restarts', async () => {
    client = lab.spawn(
      'nsenter',
      [`--net=${clientNs}`, process.execPath, '--import', 'tsx', 'test/anchor/dhcp/dhcp-entry.ts'],
      {
        PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
        DHCP_TEST_MAC: mac,
        DHCP_TEST_METRICS: metricsFile,
        ANCHORD_PROJECT: 'mailcow',
        ANCHORD_DHCP_BACKOFF_MAX: '2s',
      },
    );
    clientLog = new Output(client);
    const log = clientLog;
    const v4 = (l: Record<string, unknown>) => l.family === 4;
    await waitFor(
      'two failed attempts',
      () => log.count('dhcp client lost lease, retrying', v4) >= 2,
      30_000,
    );
    const backoffs = log
      .json()
      .filter((l) => l.msg === 'dhcp client lost lease, retrying' && v4(l))
      .map((l) => l.backoff);
    assert.deepEqual(backoffs.slice(0, 2), ['1s', '2s']);
    const text = await scrape();
    assert.ok(metric(text, 'anchord_dhcp_acquired_total{family="v4",outcome="error"}') >= 2);
    assert.ok(metric(text, 'anchord_dhcp_client_restarts_total{family="v4"}') >= 1);
    assert.equal(metric(text, 'anchord_dhcp_lease_remaining_seconds{family="v4"}'), 0);
  });

  test('the server comes up: a lease replaces the bootstrap address, option 3 is the default route', async () => {
    startServer();
    const log = clientLog as Output;
    const acquired = await waitFor(
      'a lease',
      () => log.json().find((l) => l.msg === 'dhcp v4 lease acquired'),
      30_000,
    );
    const ip = String(acquired.ip);
    assert.match(ip, new RegExp(`^${outside.replaceAll('.', '\\.')}\\.2[0-2]\\d$`));
    assert.deepEqual(addresses(), [`${ip}/24`]);
    const route = inClient(['ip', '-4', 'route', 'show', 'default']);
    assert.match(route, new RegExp(`default via ${outside}.254 dev ${clientIface()}`));
    assert.ok(
      (serverLog as Output).grep(new RegExp(`DHCPACK\\(eth0\\) ${ip} ${mac} mailcow`)).length >= 1,
    );
    const text = await scrape();
    assert.ok(metric(text, 'anchord_dhcp_acquired_total{family="v4",outcome="ok"}') >= 1);
    const left = metric(text, 'anchord_dhcp_lease_remaining_seconds{family="v4"}');
    assert.ok(left > 60 && left <= 120, `lease remaining ${left}`);
  });

  test('DHCPv6 beside it: SOLICIT, ADVERTISE, REQUEST, REPLY put a /128 from the range on the interface', async () => {
    const log = clientLog as Output;
    const acquired = await waitFor(
      'a v6 lease',
      () => log.json().find((l) => l.msg === 'dhcp v6 lease acquired'),
      30_000,
    );
    const leased = String(acquired.addrs);
    assert.match(leased, new RegExp(`^${outside6}1[0-9a-f]{2}$`));
    assert.ok(addresses6().includes(`${leased}/128`), addresses6().join(' '));
    assert.ok((serverLog as Output).grep(new RegExp(`DHCPREPLY\\(eth0\\) ${leased} `)).length >= 1);
    const text = await scrape();
    assert.ok(metric(text, 'anchord_dhcp_acquired_total{family="v6",outcome="ok"}') >= 1);
    assert.ok(metric(text, 'anchord_dhcp_lease_remaining_seconds{family="v6"}') > 60);
  });

  test('renewal at T1: a unicast REQUEST is ACKed and the address stays', async () => {
    const log = clientLog as Output;
    const ip = String(log.json().find((l) => l.msg === 'dhcp v4 lease acquired')?.ip);
    await waitFor('a renewal', () => log.count('dhcp v4 lease renewed') >= 1, 20_000);
    assert.ok((serverLog as Output).grep(new RegExp(`DHCPACK\\(eth0\\) ${ip} `)).length >= 2);
    assert.deepEqual(addresses(), [`${ip}/24`]);
  });

  test('the server goes away: renewals and rebinding go unanswered, the lease is kept; it comes back and rebinds', async () => {
    const log = clientLog as Output;
    const ip = String(log.json().find((l) => l.msg === 'dhcp v4 lease acquired')?.ip);
    await stopServer();
    const stateLines = () => log.json().filter((l) => l.msg === 'dhcp client state');
    const seen = stateLines().length;
    await waitFor(
      'rebinding',
      () =>
        stateLines()
          .slice(seen)
          .some((l) => l.to === 'rebinding'),
      30_000,
    );
    assert.deepEqual(addresses(), [`${ip}/24`]);
    const renewed = log.count('dhcp v4 lease renewed');
    startServer();
    await waitFor(
      'a renewal after the server returned',
      () => log.count('dhcp v4 lease renewed') > renewed,
      30_000,
    );
    assert.deepEqual(addresses(), [`${ip}/24`]);
  });

  test('SIGTERM: the lease is RELEASEd and the address removed', async () => {
    const running = client as ChildProcess;
    const log = clientLog as Output;
    const ip = String(log.json().find((l) => l.msg === 'dhcp v4 lease acquired')?.ip);
    running.kill('SIGTERM');
    await waitFor('the client to exit', () => running.exitCode !== null, 15_000);
    assert.equal(running.exitCode, 0);
    await waitFor(
      'DHCPRELEASE at the server',
      () =>
        (serverLog as Output).grep(new RegExp(`DHCPRELEASE\\(eth0\\) ${ip} ${mac}`)).length === 1,
      10_000,
    );
    assert.deepEqual(addresses(), []);
    await waitFor(
      'the lease file to drop the lease',
      () => !readFileSync(leases, 'utf8').includes(ip),
      10_000,
    );
    await stopServer();
    assert.equal(
      sh('nsenter', [
        `--net=${clientNs}`,
        'ip',
        '-4',
        'route',
        'show',
        '255.255.255.255/32',
      ]).stdout.trim(),
      '',
    );
  });

  test('labelwise anchor run with ANCHORD_ADDRESS_MODE=dhcp-refresh leases on the outside network and releases on SIGTERM', async () => {
    startServer();
    const anchor = lab.spawn(
      'nsenter',
      [
        `--net=${clientNs}`,
        process.execPath,
        '--import',
        'tsx',
        'test/integration/anchor-entry.ts',
      ],
      {
        PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
        DOCKER_HOST: process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock',
        ANCHORD_PROJECT: lab.name('nobody'),
        ANCHORD_EXT_NETWORK: lab.name('dhcp-out'),
        ANCHORD_ADDRESS_MODE: 'dhcp-refresh',
        ANCHORD_DHCP_HOSTNAME: 'anchor-under-test',
        ANCHORD_METRICS_ADDR: '',
        ANCHORD_LOG_LEVEL: 'debug',
      },
    );
    const log = new Output(anchor);
    const acquired = await waitFor(
      'the anchor to lease an address',
      () => log.json().find((l) => l.msg === 'dhcp v4 lease acquired'),
      30_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the anchor wrote:\n${log.lines.slice(-15).join('\n')}`);
    });
    const ip = String(acquired.ip);
    assert.equal(acquired.iface, clientIface());
    assert.deepEqual(addresses(), [`${ip}/24`]);
    assert.ok(
      (serverLog as Output).grep(new RegExp(`DHCPACK\\(eth0\\) ${ip} ${mac} anchor-under-test`))
        .length >= 1,
    );
    // The data plane runs beside DHCP: the tables are installed on the same interface.
    await waitFor('a reconcile', () => log.json().some((l) => l.msg === 'reconciled'), 20_000);
    anchor.kill('SIGTERM');
    await waitFor('the anchor to exit', () => anchor.exitCode !== null, 20_000);
    assert.equal(anchor.exitCode, 0, log.lines.slice(-5).join('\n'));
    await waitFor(
      'DHCPRELEASE from the anchor',
      () =>
        (serverLog as Output).grep(new RegExp(`DHCPRELEASE\\(eth0\\) ${ip} ${mac}`)).length === 1,
      10_000,
    );
    assert.deepEqual(addresses(), []);
    await stopServer();
  });
});

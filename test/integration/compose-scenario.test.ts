/**
 * Seed 000's acceptance scenario as users run it: a Compose project started with a Compose
 * implementation (`docker-compose up`, Debian's) using the image built from the repository's
 * Dockerfile (`.ci/build-image.sh` builds it as LABELWISE_ANCHOR_IMAGE).
 *
 *   dmz      bridge with Docker's masquerade off (stands in for the outside macvlan):
 *            anchor-a .10, anchor-b .11, the client .50
 *   transit  bridge: the anchors, the service-anchors sa-a/sa-b (backends A and B share their
 *            namespaces), backend C (role=C, no anchor selects it), and a project-less
 *            `docker run --label anchord.role=A` backend with its own service-anchor
 *
 * The client reaches each backend through its anchor's address and the backend sees the
 * client's own address (a CGI prints REMOTE_ADDR); role=C is never reachable; each anchor's map
 * holds only its own backends across reconcile cycles; a dockerd restart leaves everything
 * working; `docker-compose down` stops the anchors cleanly (exit 0 after removing their tables)
 * and leaves no anchord table anywhere. Traffic goes only to containers created here; every wait
 * is bounded.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { readDnatMap } from '../../src/anchor/io/nft.js';
import type { KernelMapElement } from '../../src/anchor/io/nft.js';
import {
  TEST_IMAGE,
  TEST_LABEL,
  must,
  requirePrerequisites,
  restartDockerd,
  sh,
  unavailableReason,
  waitFor,
} from './docker-env.js';

const IMAGE = process.env.LABELWISE_ANCHOR_IMAGE ?? 'labelwise/anchor:ci';

function scenarioReason(): string | undefined {
  const base = unavailableReason();
  if (base !== undefined) return base;
  if (sh('sh', ['-c', 'command -v docker-compose']).code !== 0)
    return 'docker-compose is not installed (Debian package docker-compose)';
  if (sh('docker', ['image', 'inspect', IMAGE]).code !== 0)
    return `the anchor image ${IMAGE} is not built (run .ci/build-image.sh)`;
  return undefined;
}

const reason = requirePrerequisites('compose scenario', scenarioReason());

describe(
  'compose scenario: docker-compose up with the built image',
  { skip: reason, timeout: 900_000 },
  () => {
    const project = `lwc${process.pid}`;
    const k = 100 + ((process.pid + 37) % 100);
    const dmzIp = (host: number): string => `10.${k}.11.${host}`;
    const transitIp = (host: number): string => `10.${k}.12.${host}`;
    let dir = '';
    let file = '';
    const compose = (args: string[], timeoutMs = 240_000): string =>
      must('docker-compose', ['-p', project, '-f', file, ...args], timeoutMs);
    const containerOf = (service: string): string => compose(['ps', '-q', service]).trim();
    const pidOf = (container: string): string =>
      must('docker', ['inspect', '--format', '{{.State.Pid}}', container]);
    const mapOf = async (service: string): Promise<KernelMapElement[] | undefined> =>
      readDnatMap('ipv4', 'tcp', ['nsenter', '-t', pidOf(containerOf(service)), '-n']);
    const logsOf = (service: string): Record<string, unknown>[] =>
      compose(['logs', '--no-color', '--no-log-prefix', service])
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    /** What the backend behind `address:port` answers the client: its name and the peer it saw. */
    let clientPid = '';
    /**
     * What the backend behind `address:port` answers the client: its name and the peer it saw.
     * Run in the client's network namespace with the host's busybox, so it works while dockerd is
     * down too.
     */
    const fetchAs = (address: string, port: number): { code: number | null; body: string } => {
      const result = sh(
        'nsenter',
        [
          '-t',
          clientPid,
          '-n',
          '--',
          'timeout',
          '5',
          'busybox',
          'wget',
          '-q',
          '-O',
          '-',
          `http://${address}:${port}/cgi-bin/who`,
        ],
        15_000,
      );
      return { code: result.code, body: result.stdout.trim() };
    };

    /** A CGI that prints the backend's name and its peer; `$$` is Compose's literal `$`. */
    const backendCommand = (name: string, dollar = '$'): string[] => [
      'sh',
      '-c',
      `mkdir -p /www/cgi-bin && printf '#!/bin/sh\\necho Content-Type: text/plain\\necho\\necho ${name} ${dollar}REMOTE_ADDR\\n' > /www/cgi-bin/who && chmod +x /www/cgi-bin/who && exec httpd -f -p 80 -h /www`,
    ];

    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'labelwise-compose-'));
      file = join(dir, 'compose.yaml');
      const anchorEnv = (selector: string): Record<string, string> => ({
        ANCHORD_LABEL_SELECTOR: selector,
        ANCHORD_EXT_NETWORK: `${project}_dmz`,
        ANCHORD_SHARED_NETWORK: `${project}_transit`,
        ANCHORD_POLL_INTERVAL: '2s',
        // The socket's directory: dockerd recreates the socket when it restarts.
        DOCKER_HOST: 'unix:///docker-run/docker.sock',
      });
      const anchor = (selector: string, dmz: number, transit: number): object => ({
        image: IMAGE,
        command: ['network-anchor'],
        cap_add: ['NET_ADMIN'],
        sysctls: { 'net.ipv4.ip_forward': '1' },
        volumes: ['/var/run:/docker-run:ro'],
        labels: { [TEST_LABEL]: project },
        environment: anchorEnv(selector),
        networks: {
          dmz: { ipv4_address: dmzIp(dmz) },
          transit: { ipv4_address: transitIp(transit) },
        },
      });
      const serviceAnchor = (gateway: string, transit: number): object => ({
        image: IMAGE,
        command: ['service-anchor'],
        cap_add: ['NET_ADMIN'],
        labels: { [TEST_LABEL]: project },
        environment: { ANCHORD_GATEWAY_HOSTNAME: gateway, ANCHORD_GATEWAY_RESOLVE_INTERVAL: '1s' },
        networks: { transit: { ipv4_address: transitIp(transit) } },
      });
      const backend = (role: string, via: string | undefined, transit?: number): object => ({
        image: TEST_IMAGE,
        command: backendCommand(`backend-${role}`, '$$'),
        labels: { [TEST_LABEL]: project, 'anchord.role': role, 'anchord.expose': 'tcp/80' },
        ...(via !== undefined
          ? { network_mode: `service:${via}` }
          : { networks: { transit: { ipv4_address: transitIp(transit as number) } } }),
      });
      const document = {
        version: '2.4',
        services: {
          'anchor-a': anchor('anchord.role=A', 10, 10),
          'anchor-b': anchor('anchord.role=B', 11, 11),
          'sa-a': serviceAnchor('anchor-a', 21),
          'sa-b': serviceAnchor('anchor-b', 22),
          'backend-a': { ...backend('A', 'sa-a'), depends_on: ['sa-a'] },
          'backend-b': { ...backend('B', 'sa-b'), depends_on: ['sa-b'] },
          'backend-c': backend('C', undefined, 23),
          client: {
            image: TEST_IMAGE,
            command: ['sleep', '3600'],
            labels: { [TEST_LABEL]: project },
            networks: { dmz: { ipv4_address: dmzIp(50) } },
          },
        },
        networks: {
          dmz: {
            driver: 'bridge',
            driver_opts: { 'com.docker.network.bridge.enable_ip_masquerade': 'false' },
            ipam: { config: [{ subnet: `10.${k}.11.0/24` }] },
          },
          transit: { driver: 'bridge', ipam: { config: [{ subnet: `10.${k}.12.0/24` }] } },
        },
      };
      writeFileSync(file, stringify(document));
      compose(['up', '-d'], 300_000);
      clientPid = pidOf(containerOf('client'));
      // A backend started outside Compose (as Authentik starts its outposts), with a
      // service-anchor of its own that takes the gateway as an address, not a DNS name.
      must('docker', [
        'run',
        '-d',
        '--name',
        `${project}-free-sa`,
        '--label',
        `${TEST_LABEL}=${project}`,
        '--network',
        `${project}_transit`,
        '--ip',
        transitIp(24),
        '--cap-add',
        'NET_ADMIN',
        '-e',
        `ANCHORD_GATEWAY_IP=${transitIp(10)}`,
        IMAGE,
        'service-anchor',
      ]);
      must('docker', [
        'run',
        '-d',
        '--name',
        `${project}-free`,
        '--label',
        `${TEST_LABEL}=${project}`,
        '--label',
        'anchord.role=A',
        '--label',
        'anchord.expose=tcp/8081:80',
        '--network',
        `container:${project}-free-sa`,
        TEST_IMAGE,
        ...backendCommand('backend-free'),
      ]);
    });

    after(() => {
      if (file !== '')
        sh('docker-compose', ['-p', project, '-f', file, 'down', '-v', '-t', '10'], 180_000);
      const ids = sh('docker', ['ps', '-aq', '--filter', `label=${TEST_LABEL}=${project}`])
        .stdout.split('\n')
        .filter((id) => id !== '');
      if (ids.length > 0) sh('docker', ['rm', '-f', ...ids], 120_000);
      for (const network of ['dmz', 'transit'])
        sh('docker', ['network', 'rm', `${project}_${network}`]);
      if (dir !== '') rmSync(dir, { recursive: true, force: true });
    });

    const expectMaps = async (): Promise<void> => {
      await waitFor(
        'each anchor to map only its own backends',
        async () => {
          const a = await mapOf('anchor-a');
          const b = await mapOf('anchor-b');
          return (
            JSON.stringify(a) ===
              JSON.stringify([
                { port: 80, address: transitIp(21), backendPort: 80 },
                { port: 8081, address: transitIp(24), backendPort: 80 },
              ]) &&
            JSON.stringify(b) ===
              JSON.stringify([{ port: 80, address: transitIp(22), backendPort: 80 }])
          );
        },
        60_000,
        250,
      );
    };

    const peer = (body: string): string =>
      body.split(' ')[1]?.replace(/^\[?(::ffff:)?|\]$/g, '') ?? '';

    it('the anchors map their own backends, the project-less one included', async () => {
      await expectMaps();
    });

    it('the client reaches each backend through its anchor, with its own source address', async () => {
      for (const [anchor, port, name] of [
        [dmzIp(10), 80, 'backend-A'],
        [dmzIp(11), 80, 'backend-B'],
        [dmzIp(10), 8081, 'backend-free'],
      ] as const) {
        const answer = await waitFor(
          `${name} through ${anchor}:${port}`,
          () => {
            const result = fetchAs(anchor, port);
            return result.code === 0 && result.body.startsWith(name) ? result.body : undefined;
          },
          60_000,
          500,
        );
        assert.equal(peer(answer), dmzIp(50), `${name} sees the client's address: ${answer}`);
      }
    });

    it('role=C is never reachable and never mapped', async () => {
      for (const anchor of ['anchor-a', 'anchor-b'])
        assert.ok(!(await mapOf(anchor))?.some((e) => e.address === transitIp(23)));
      assert.notEqual(fetchAs(dmzIp(10), 8082).code, 0);
      assert.doesNotMatch(fetchAs(dmzIp(11), 80).body, /backend-C/);
    });

    it('nothing is clobbered across reconcile cycles', async () => {
      const reconciled = (service: string): number =>
        logsOf(service).filter((l) => l.msg === 'reconciled').length;
      const before = reconciled('anchor-a') + reconciled('anchor-b');
      await waitFor(
        'three poll cycles of both anchors',
        () => reconciled('anchor-a') + reconciled('anchor-b') >= before + 6,
        30_000,
        500,
      );
      await expectMaps();
      const levels = new Set(logsOf('anchor-a').map((l) => l.level));
      assert.ok(
        [...levels].every((l) => ['INFO', 'WARN', 'DEBUG'].includes(String(l))),
        [...levels].join(),
      );
    });

    it('a dockerd restart is survived', async (t) => {
      const skipped = await restartDockerd(async () => {
        assert.equal(
          fetchAs(dmzIp(10), 80).body.split(' ')[0],
          'backend-A',
          'traffic flows while Docker is down',
        );
      });
      if (skipped !== undefined) {
        t.skip(skipped);
        return;
      }
      await expectMaps();
      assert.equal(fetchAs(dmzIp(11), 80).body.split(' ')[0], 'backend-B');
    });

    it('docker-compose down stops the anchors cleanly and leaves no nft tables', async () => {
      const anchors = ['anchor-a', 'anchor-b'].map(containerOf);
      compose(['stop', '-t', '20'], 180_000);
      for (const id of anchors) {
        assert.equal(must('docker', ['inspect', '--format', '{{.State.ExitCode}}', id]), '0');
        const logs = must('docker', ['logs', id], 30_000);
        assert.match(logs, /"msg":"signal received, shutting down"/);
      }
      sh('docker', ['rm', '-f', `${project}-free`, `${project}-free-sa`], 60_000);
      compose(['down', '-v', '-t', '10'], 180_000);
      assert.doesNotMatch(must('nft', ['list', 'tables']), /anchord_v[46]/);
      assert.equal(
        sh('docker', [
          'ps',
          '-aq',
          '--filter',
          `label=com.docker.compose.project=${project}`,
        ]).stdout.trim(),
        '',
      );
    });
  },
);

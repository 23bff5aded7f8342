// anchord's operator interface, as data: each case in the JSON files beside this runner names the
// anchord file and test (or code path) it was recorded from. See docs/anchor.md for the
// deliberate differences.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { LabelwiseError } from '../../../../src/base/errors.js';
import { loadConfig, parseListenAddress } from '../../../../src/anchor/config.js';
import { parseExpose, parseExposeV6 } from '../../../../src/anchor/expose.js';
import { startHttpServer } from '../../../../src/anchor/io/http-server.js';
import { AnchorMetrics } from '../../../../src/anchor/metrics.js';
import { parseLogLevel, selectMode } from '../../../../src/anchor/mode.js';
import type { Family } from '../../../../src/anchor/model.js';
import { renderNftScript } from '../../../../src/anchor/nft-script.js';
import { createLogger } from '../../../../src/anchor/run.js';
import { ServiceAnchor } from '../../../../src/anchor/service-anchor.js';
import type { DefaultRoute, RoutePort } from '../../../../src/anchor/service-anchor.js';
import {
  loadServiceAnchorConfig,
  parseGatewayIps,
} from '../../../../src/anchor/service-anchor-config.js';
import { chooseSharedNetwork } from '../../../../src/anchor/shared-network.js';

interface Upstream {
  readonly file: string;
  readonly test: string;
}

function load<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as T;
}

function title(upstream: Upstream, name: string): string {
  return `anchord ${upstream.file} ${upstream.test}: ${name}`;
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof LabelwiseError) return `${error.code}|${error.message}`;
    throw error;
  }
}

// --- labels ---------------------------------------------------------------------------------
const labels = load<{
  cases: {
    name: string;
    upstream: Upstream;
    expose: string | null;
    exposeV6?: string;
    want?: string[];
    v6?: 'auto' | 'off';
    error?: string;
  }[];
}>('labels.json');

for (const row of labels.cases) {
  test(title(row.upstream, row.name), () => {
    const run = (): string[] => {
      const entries = parseExpose(row.expose ?? '');
      const v6 = parseExposeV6(row.exposeV6);
      if (row.v6 !== undefined) assert.equal(v6, row.v6);
      return entries.map((e) => `${e.proto}/${e.port}:${e.backendPort}`);
    };
    if (row.error !== undefined) {
      assert.equal(codeOf(run)?.split('|')[0], row.error);
      return;
    }
    assert.deepEqual(run(), row.want);
  });
}

// --- modes ----------------------------------------------------------------------------------
const modes = load<{
  cases: {
    name: string;
    upstream: Upstream;
    argument: string | null;
    env: string;
    want?: string;
    error?: string;
    message?: string;
  }[];
  addressModes: {
    name: string;
    upstream: Upstream;
    value: string;
    ok?: boolean;
    error?: string;
    message?: string;
  }[];
}>('modes.json');

for (const row of modes.cases) {
  test(title(row.upstream, row.name), () => {
    const run = (): string => selectMode(row.argument ?? undefined, { ANCHORD_MODE: row.env });
    if (row.error === undefined) {
      assert.equal(run(), row.want);
      return;
    }
    const [code, message] = (codeOf(run) ?? '').split('|');
    assert.equal(code, row.error);
    assert.ok(message?.includes(row.message ?? ''), message);
    assert.ok(!(row.error === 'ANCHOR_MODE_NOT_SUPPORTED' && message?.includes('unknown mode')));
  });
}

for (const row of modes.addressModes) {
  test(title(row.upstream, `address mode ${row.name}`), () => {
    const run = (): unknown =>
      loadConfig({ ANCHORD_PROJECT: 'mailcow', ANCHORD_ADDRESS_MODE: row.value });
    const outcome = codeOf(run);
    if (row.ok === true) {
      assert.equal(outcome, undefined);
      return;
    }
    const [code, message] = (outcome ?? '').split('|');
    assert.equal(code, row.error);
    if (row.message !== undefined) assert.ok(message?.includes(row.message), message);
  });
}

// --- interface: metrics, health, logs, listener, shared network --------------------------------
interface ReadyCase {
  name: string;
  upstream: Upstream;
  state: Record<string, boolean>;
  status: number;
  body: string;
}
const iface = load<{
  metricsAtStart: { upstream: Upstream; series: string[]; families: string[]; never: string[] };
  buildInfo: { upstream: Upstream; pattern: string };
  readyz: ReadyCase[];
  healthz: { upstream: Upstream; status: number; body: string };
  logLevels: {
    name: string;
    upstream: Upstream;
    value: string | null;
    level: string;
    warns: boolean;
  }[];
  logLine: {
    upstream: Upstream;
    levels: Record<string, string>;
    fatal: { level: string; msg: string; errorKey: string };
  };
  listen: {
    name: string;
    upstream: Upstream;
    value: string | null;
    host?: string;
    port?: number;
    disabled?: boolean;
  }[];
  sharedNetwork: {
    name: string;
    upstream: Upstream;
    self: string[];
    backends: Record<string, number>;
    want: string;
  }[];
}>('interface.json');

test(
  title(iface.metricsAtStart.upstream, 'every bounded series exists at zero from the start'),
  async () => {
    const text = await new AnchorMetrics().registry.metrics();
    for (const series of iface.metricsAtStart.series)
      assert.ok(text.split('\n').includes(series), `missing ${series}`);
    for (const family of iface.metricsAtStart.families)
      assert.match(text, new RegExp(`^# TYPE ${family} `, 'm'));
    for (const never of iface.metricsAtStart.never) assert.ok(!text.includes(never), never);
  },
);

test(
  title(iface.buildInfo.upstream, 'anchord_build_info is exported as a constant 1'),
  async () => {
    const text = await new AnchorMetrics().registry.metrics();
    assert.match(text, new RegExp(iface.buildInfo.pattern, 'm'));
  },
);

for (const row of iface.readyz) {
  test(title(row.upstream, `/readyz ${row.name}`), async () => {
    const metrics = new AnchorMetrics();
    const { server, port } = await startHttpServer(
      { host: '127.0.0.1', port: 0 },
      metrics.registry,
      () => row.state,
    );
    try {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      assert.equal(ready.status, row.status);
      assert.equal(await ready.text(), row.body);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(health.status, iface.healthz.status);
      assert.equal(await health.text(), iface.healthz.body);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
}

for (const row of iface.logLevels) {
  test(title(row.upstream, `ANCHORD_LOG_LEVEL ${row.name}`), () => {
    const parsed = parseLogLevel(row.value ?? undefined);
    assert.equal(parsed.level, row.level);
    assert.equal(parsed.notice !== undefined, row.warns);
    if (row.warns) assert.equal(parsed.notice?.level, 'warn');
  });
}

test(title(iface.logLine.upstream, 'log lines carry slog level names and err'), () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', (line) => lines.push(JSON.parse(line)));
  for (const level of Object.keys(iface.logLine.levels))
    (logger as unknown as Record<string, (attrs: object, msg: string) => void>)[level]?.({}, level);
  assert.deepEqual(Object.fromEntries(lines.map((l) => [l.msg, l.level])), iface.logLine.levels);
  assert.ok(lines.every((l) => typeof l.time === 'string'));
  assert.ok(pino.levels.values.fatal !== undefined);
});

test(
  title(iface.logLine.upstream, 'a fatal configuration error is one ERROR line "fatal" with err'),
  async () => {
    const { runAnchorDaemon } = await import('../../../../src/anchor/run.js');
    const lines: Record<string, unknown>[] = [];
    const code = await runAnchorDaemon({
      env: { ANCHORD_MODE: 'wrap-rebinder' },
      write: (line) => lines.push(JSON.parse(line)),
      signal: new AbortController().signal,
    });
    assert.equal(code, 1);
    assert.equal(lines.length, 1);
    const { fatal } = iface.logLine;
    assert.equal(lines[0]?.level, fatal.level);
    assert.equal(lines[0]?.msg, fatal.msg);
    assert.match(String(lines[0]?.[fatal.errorKey]), /^COMPOSE_PROJECT_NAME must be set/);
  },
);

for (const row of iface.listen) {
  test(title(row.upstream, `ANCHORD_METRICS_ADDR ${row.name}`), () => {
    const env = row.value === null ? {} : { ANCHORD_METRICS_ADDR: row.value };
    const { config } = loadConfig({ ANCHORD_PROJECT: 'p', ...env });
    if (row.disabled === true) assert.equal(config.metrics, undefined);
    else assert.deepEqual(config.metrics, { host: row.host, port: row.port });
  });
}

test('anchord cmd/anchord/main.go: ":9090" really answers on IPv4 and IPv6 loopback', async (t) => {
  const metrics = new AnchorMetrics();
  const { server, port } = await startHttpServer(
    { ...parseListenAddress(':0') },
    metrics.registry,
    () => ({ ok: true }),
  );
  try {
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    const v6 = await fetch(`http://[::1]:${port}/healthz`).catch(() => undefined);
    if (v6 === undefined) t.diagnostic('no IPv6 loopback here; IPv4 checked only');
    else assert.equal(v6.status, 200);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

for (const row of iface.sharedNetwork) {
  test(title(row.upstream, `shared network: ${row.name}`), () => {
    const choice = chooseSharedNetwork({
      selfNetworks: row.self,
      exclude: [],
      backendNetworks: Object.entries(row.backends).flatMap(([name, count]) =>
        Array.from({ length: count }, () => [name]),
      ),
    });
    assert.equal(choice.network, row.want);
  });
}

// --- nftables layout ------------------------------------------------------------------------
const nft = load<{
  cases: {
    name: string;
    upstream: Upstream;
    fibFamilies: Family[];
    contains: string[];
    absent?: string[];
  }[];
}>('nft.json');

for (const row of nft.cases) {
  test(title(row.upstream, row.name), () => {
    const script = renderNftScript(
      [
        {
          family: 'ipv4',
          proto: 'tcp',
          port: 80,
          address: '172.20.0.2',
          backendPort: 80,
          container: 'a',
        },
        {
          family: 'ipv6',
          proto: 'tcp',
          port: 80,
          address: 'fd00::2',
          backendPort: 80,
          container: 'a',
        },
      ],
      { extIface: 'eth0', fibFamilies: row.fibFamilies },
    );
    for (const text of row.contains) assert.ok(script.includes(text), text);
    for (const text of row.absent ?? []) assert.ok(!script.includes(text), text);
  });
}

// --- service-anchor -------------------------------------------------------------------------
const service = load<{
  scenarios: {
    name: string;
    upstream: Upstream;
    steps: { resolve: string[] | string; failReplace?: boolean }[];
    stop?: boolean;
    want: { replaces: string[]; removes?: string[]; ready: boolean; warned?: string };
  }[];
  gatewayIp: {
    name: string;
    upstream: Upstream;
    value: string;
    want?: Record<string, string>;
    error?: string;
  }[];
  resolveInterval: {
    name: string;
    upstream: Upstream;
    value: string | null;
    ms?: number;
    error?: string;
  }[];
  gatewayHostname: { upstream: Upstream; default: string };
}>('service-anchor.json');

class RecordingRoutes implements RoutePort {
  readonly replaces: string[] = [];
  readonly removes: string[] = [];
  fail = false;
  async current(): Promise<DefaultRoute | undefined> {
    return undefined;
  }
  async replace(family: Family, route: DefaultRoute): Promise<void> {
    if (this.fail) throw new Error('RTNETLINK answers: Network is unreachable');
    this.replaces.push(`${family} ${route.gateway}`);
  }
  async remove(family: Family, gateway: string): Promise<void> {
    this.removes.push(`${family} ${gateway}`);
  }
}

for (const row of service.scenarios) {
  test(title(row.upstream, `service-anchor: ${row.name}`), async () => {
    const routes = new RecordingRoutes();
    const lines: Record<string, unknown>[] = [];
    let answer: string[] | string = [];
    const { config } = loadServiceAnchorConfig({ ANCHORD_GATEWAY_RESOLVE_INTERVAL: '1h' });
    const anchor = new ServiceAnchor(config, {
      routes,
      resolve: async () => {
        if (typeof answer === 'string') throw new Error(answer);
        return answer;
      },
      logger: createLogger('debug', (line) => lines.push(JSON.parse(line))),
      metrics: new AnchorMetrics(),
    });
    for (const [i, step] of row.steps.entries()) {
      answer = step.resolve;
      routes.fail = step.failReplace === true;
      if (i === 0) await anchor.start();
      else await anchor.reconcile();
    }
    await anchor.stop();
    assert.deepEqual(routes.replaces, row.want.replaces);
    if (row.want.removes !== undefined) assert.deepEqual(routes.removes, row.want.removes);
    assert.equal(anchor.readiness().route_installed, row.want.ready);
    if (row.want.warned !== undefined)
      assert.ok(lines.some((l) => l.level === 'WARN' && l.msg === row.want.warned));
    assert.equal(lines[0]?.msg, 'service-anchor starting');
  });
}

for (const row of service.gatewayIp) {
  test(title(row.upstream, `ANCHORD_GATEWAY_IP ${row.name}`), () => {
    if (row.error !== undefined) {
      assert.equal(codeOf(() => parseGatewayIps(row.value))?.split('|')[0], row.error);
      return;
    }
    assert.deepEqual(parseGatewayIps(row.value), row.want);
  });
}

for (const row of service.resolveInterval) {
  test(title(row.upstream, `ANCHORD_GATEWAY_RESOLVE_INTERVAL ${row.name}`), () => {
    const env = row.value === null ? {} : { ANCHORD_GATEWAY_RESOLVE_INTERVAL: row.value };
    if (row.error !== undefined) {
      assert.equal(codeOf(() => loadServiceAnchorConfig(env))?.split('|')[0], row.error);
      return;
    }
    assert.equal(loadServiceAnchorConfig(env).config.resolveIntervalMs, row.ms);
  });
}

test(title(service.gatewayHostname.upstream, 'the gateway hostname defaults to anchord'), () => {
  assert.equal(loadServiceAnchorConfig({}).config.gatewayHostname, service.gatewayHostname.default);
});

test('anchord internal/discovery/discovery.go: slog.Warn("invalid expose labels", "container", …, "err", err)', async () => {
  const { plan } = await import('../../../../src/anchor/plan.js');
  const { parseEqualityList } = await import('../../../../src/selector/index.js');
  const { container, snapshot } = await import('../../helpers.js');
  const planned = plan(
    snapshot([
      container('lone-comma', { role: 'a', 'anchord.expose': ',' }, [
        { name: 'transit', ipv4: '172.20.0.2' },
      ]),
    ]),
    { scope: parseEqualityList('role=a'), excludeNetworks: [] },
  );
  const notice = planned.notices.find((n) => n.msg === 'invalid expose labels');
  assert.equal(notice?.level, 'warn');
  assert.equal(notice?.attrs.container, 'lone-comma');
  assert.equal(typeof notice?.attrs.err, 'string');
  assert.equal(planned.entries.length, 0);
});

// Runs the dhcp-refresh client alone (no Docker discovery, no nft), as the DHCP integration test
// starts it inside a container's network namespace. The outside interface is the one with
// DHCP_TEST_MAC. SIGUSR1 writes the metrics to DHCP_TEST_METRICS; SIGTERM releases and exits.
import { renameSync, writeFileSync } from 'node:fs';
import { resolveScope } from '../../../src/anchor/config.js';
import { loadDhcpConfig } from '../../../src/anchor/dhcp/config.js';
import { startDhcpClients } from '../../../src/anchor/dhcp/io/start.js';
import { localInterfacesByMac } from '../../../src/anchor/io/interfaces.js';
import { AnchorMetrics } from '../../../src/anchor/metrics.js';
import { createLogger } from '../../../src/anchor/run.js';

const env = process.env;
const logger = createLogger('debug', (line) => void process.stdout.write(line));
const iface = (await localInterfacesByMac({ withoutAddress: true })).get(
  (env.DHCP_TEST_MAC ?? '').toLowerCase(),
);
if (iface === undefined) throw new Error(`no interface has MAC ${env.DHCP_TEST_MAC}`);
const metrics = new AnchorMetrics();
const supervisor = await startDhcpClients(
  iface,
  loadDhcpConfig(env, resolveScope(env).scope),
  logger,
  metrics,
  // Seconds instead of minutes, so one test run sees every transition.
  { timing: { exchangeTimeoutMs: 3000, retransmitMs: 1000, renewRetryMaxMs: 2000 } },
);
process.on('SIGUSR1', () => {
  void metrics.registry.metrics().then((text) => {
    // Written whole, then renamed, so the test never reads half a scrape.
    writeFileSync(`${env.DHCP_TEST_METRICS}.tmp`, text);
    renameSync(`${env.DHCP_TEST_METRICS}.tmp`, `${env.DHCP_TEST_METRICS}`);
  });
});
process.on('SIGTERM', () => {
  void supervisor.stop().then(() => {
    logger.info({}, 'dhcp test client stopped');
    process.exit(0);
  });
});
setInterval(() => undefined, 1 << 30);

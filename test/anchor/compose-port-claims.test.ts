// One port-claim rule for the daemon's planner and the static check (src/anchor/port-claims.ts):
// the first request for a (family, proto, port) wins, every later one loses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claimPorts, plan } from '../../src/anchor/index.js';
import { parseEqualityList } from '../../src/selector/index.js';
import { checkFiles } from './compose-helpers.js';

test('claimPorts: first request wins; keys differ by family, proto and port', () => {
  const claims = claimPorts([
    { family: 'ipv4', proto: 'tcp', port: 80, who: 'a' },
    { family: 'ipv4', proto: 'tcp', port: 80, who: 'b' },
    { family: 'ipv6', proto: 'tcp', port: 80, who: 'b' },
    { family: 'ipv4', proto: 'udp', port: 80, who: 'c' },
    { family: 'ipv4', proto: 'tcp', port: 80, who: 'c' },
  ] as const);
  assert.deepEqual(
    claims.map((c) => [
      c.winner.family,
      c.winner.proto,
      c.winner.port,
      c.winner.who,
      c.losers.map((l) => l.who),
    ]),
    [
      ['ipv4', 'tcp', 80, 'a', ['b', 'c']],
      ['ipv6', 'tcp', 80, 'b', []],
      ['ipv4', 'udp', 80, 'c', []],
    ],
  );
});

test('the planner and the check agree on the winner when creation order is name order', () => {
  const network = [{ name: 'transit', ipv4: '10.0.0.2' }];
  const container = (name: string, created: number, ip: string) => ({
    id: name,
    name,
    created,
    labels: { role: 'x', 'anchord.expose': 'tcp/80' },
    networks: [{ name: 'transit', ipv4: ip }],
  });
  const result = plan(
    {
      self: { id: 'anchor', name: 'anchor', networks: network },
      containers: [container('web2', 2, '10.0.0.4'), container('web1', 1, '10.0.0.3')],
      networkPeers: {},
    },
    { scope: parseEqualityList('role=x'), excludeNetworks: [] },
  );
  const report = checkFiles({
    'compose.yaml': `services:
  anchor:
    environment: { ANCHORD_LABEL_SELECTOR: "role=x" }
  web2:
    labels: { role: x, anchord.expose: tcp/80 }
  web1:
    labels: { role: x, anchord.expose: tcp/80 }
`,
  });
  assert.deepEqual(
    result.conflicts.map((c) => [c.winner, c.losers]),
    [['web1', ['web2']]],
  );
  assert.deepEqual(
    report.anchors[0]?.entries.map((e) => e.backend),
    ['web1'],
  );
  assert.deepEqual(
    report.errors.map((e) => [e.code, e.service]),
    [['ANCHOR_PORT_CONFLICT', 'web2']],
  );
});

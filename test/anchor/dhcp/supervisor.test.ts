// The supervisor's edges without a network: anchord's duration words, and the `ip` failures that
// surface as ANCHOR_DHCP_FAILED.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelwiseError } from '../../../src/base/errors.js';
import { IpAddressing } from '../../../src/anchor/dhcp/io/addressing.js';
import { goDuration } from '../../../src/anchor/dhcp/io/supervisor.js';

test("back-off durations print as Go's time.Duration does", () => {
  const rows: [number, string][] = [
    [500, '500ms'],
    [1000, '1s'],
    [1500, '1.5s'],
    [90_000, '1m30s'],
    [300_000, '5m0s'],
    [3_600_000, '1h0m0s'],
  ];
  for (const [ms, want] of rows) assert.equal(goDuration(ms), want, `${ms} ms`);
});

test('ip refusing the broadcast route is ANCHOR_DHCP_FAILED', async () => {
  // `false` exits 1 without output: what ip does without NET_ADMIN, minus the words.
  const addressing = new IpAddressing('false');
  await assert.rejects(addressing.prepare('eth0'), (error: unknown) => {
    assert.ok(error instanceof LabelwiseError);
    assert.equal(error.code, 'ANCHOR_DHCP_FAILED');
    assert.equal(error.kind, 'unavailable');
    return true;
  });
});

test('a missing ip binary is ANCHOR_TOOL_MISSING', async () => {
  const addressing = new IpAddressing('/nonexistent/ip');
  await assert.rejects(addressing.defaultRoute('eth0', '10.0.0.1'), (error: unknown) => {
    assert.ok(error instanceof LabelwiseError);
    assert.equal(error.code, 'ANCHOR_TOOL_MISSING');
    return true;
  });
});

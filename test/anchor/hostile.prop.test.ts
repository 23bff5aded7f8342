import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { plan, renderNftScript } from '../../src/anchor/index.js';
import { EVERYTHING } from '../../src/selector/index.js';
import { container, snapshot } from './helpers.js';
import { run } from '../../src/cli/anchor.js';
import { memoryIO } from '../../src/cli/io.js';

// Every element line the renderer may write: port : address . port, nothing else.
const ELEMENT = /^\t\t\t\d{1,5} : [0-9a-f.:]+ \. \d{1,5},?$/;
const SAFE_LINE =
  /^(#!\/usr\/sbin\/nft -f|table ip6? anchord_v[46] \{\}?|delete table ip6? anchord_v[46]|\t(map dnat_(tcp|udp) \{|chain (pre|post)routing \{|\})|\t\t(type .*|elements = \{|\}|fib daddr type local dnat ip6? to (tcp|udp) dport map @dnat_(tcp|udp)|ct status dnat iifname != "eth0" masquerade|oifname "eth0" masquerade)|\})$/;

test('property: hostile labels and addresses never reach the nft script', () => {
  const hostile = fc.oneof(
    fc.string({ maxLength: 80 }),
    fc.constantFrom(
      'tcp/80;flush ruleset',
      'tcp/80\nflush ruleset',
      'tcp/80 } ; delete table ip nat',
      'udp/53:5353',
      'tcp/443',
    ),
  );
  const address = fc.oneof(
    fc.ipV4(),
    fc.string({ maxLength: 30 }),
    fc.constant('10.0.0.1 } ; flush ruleset'),
  );
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(hostile, hostile, address, fc.oneof(fc.ipV6(), fc.string({ maxLength: 20 }))),
        { maxLength: 8 },
      ),
      (rows) => {
        const containers = rows.map(([expose, v6, ipv4, ipv6], i) =>
          container(
            `c${i}`,
            { 'anchord.expose': expose, 'anchord.expose.v6': v6 },
            [{ name: 'transit', ipv4, ipv6 }],
            { created: i },
          ),
        );
        const result = plan(snapshot(containers), { scope: EVERYTHING, excludeNetworks: ['dmz'] });
        const script = renderNftScript(result.entries, { extIface: 'eth0' });
        for (const line of script.split('\n').filter((l) => l !== '')) {
          assert.ok(
            ELEMENT.test(line) || SAFE_LINE.test(line),
            `unexpected script line: ${JSON.stringify(line)}`,
          );
        }
      },
    ),
    { numRuns: 500 },
  );
});

test('CLI: anchor run with a bad selector prints one fatal JSON line and exits 1', async () => {
  const io = memoryIO({ env: { ANCHORD_LABEL_SELECTOR: 'nokey' } });
  assert.equal(await run(['run'], io), 1);
  const lines = io.out.trim().split('\n');
  assert.equal(lines.length, 1);
  const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
  assert.deepEqual(
    [line.level, line.msg, line.code, line.err],
    [
      'ERROR',
      'fatal',
      'SELECTOR_EQUALITY_MISSING_EQUALS',
      `label selector entry "nokey" missing '='`,
    ],
  );
});

test('CLI: anchor --help and run --help show real examples', async () => {
  for (const args of [['--help'], ['run', '--help'], ['network-anchor', '--help']]) {
    const io = memoryIO();
    assert.equal(await run(args, io), 0);
    assert.match(io.out, /ANCHORD_LABEL_SELECTOR=anchord\.role=ldap-outpost/);
  }
});

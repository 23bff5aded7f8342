import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LabelwiseError } from '../../src/base/errors.js';
import { parseExpose, parseExposeV6 } from '../../src/anchor/index.js';

const valid: [string, string, { proto: string; port: number; backendPort: number }[]][] = [
  ['single', 'tcp/443', [{ proto: 'tcp', port: 443, backendPort: 443 }]],
  ['translation', 'tcp/443:8443', [{ proto: 'tcp', port: 443, backendPort: 8443 }]],
  [
    'list, case-insensitive, spaces and empty items',
    ' UDP/53 ,, tcp/389,Tcp/636 ,',
    [
      { proto: 'tcp', port: 389, backendPort: 389 },
      { proto: 'tcp', port: 636, backendPort: 636 },
      { proto: 'udp', port: 53, backendPort: 53 },
    ],
  ],
  ['duplicates collapse', 'tcp/80,tcp/80', [{ proto: 'tcp', port: 80, backendPort: 80 }]],
  ['port bounds', 'tcp/1:65535', [{ proto: 'tcp', port: 1, backendPort: 65535 }]],
  ['blank', '  ', []],
  [
    'blanks inside an entry, as anchord trims them',
    'tcp/ 636 : 6636',
    [{ proto: 'tcp', port: 636, backendPort: 6636 }],
  ],
  ['blank before the slash', ' tcp /80', [{ proto: 'tcp', port: 80, backendPort: 80 }]],
];
for (const [name, input, want] of valid) {
  test(`expose: ${name}`, () => assert.deepEqual(parseExpose(input), want));
}

const invalid: [string, string][] = [
  ['no proto', '443'],
  ['unknown proto', 'sctp/443'],
  ['range', 'tcp/80-90'],
  ['port 0', 'tcp/0'],
  ['port too large', 'tcp/65536'],
  ['backend port 0', 'tcp/80:0'],
  ['injection', 'tcp/80;flush ruleset'],
  ['newline', 'tcp/80\nflush ruleset'],
  ['one bad entry spoils the container', 'tcp/80,tcp/x'],
  ['same port, two backend ports', 'tcp/80:8080,tcp/80:9090'],
  ['huge value', `tcp/80,${'x'.repeat(10_000)}`],
  ['sign', 'tcp/+80'],
  ['blank inside a number', 'tcp/8 0'],
  ['a lone comma (anchord: set but empty)', ','],
];
for (const [name, input] of invalid) {
  test(`expose invalid: ${name}`, () => {
    assert.throws(
      () => parseExpose(input),
      (error: unknown) => error instanceof LabelwiseError && error.code === 'ANCHOR_INVALID_EXPOSE',
    );
  });
}

test('expose.v6 values', () => {
  for (const v of [undefined, '', 'auto', ' AUTO ']) assert.equal(parseExposeV6(v), 'auto');
  for (const v of ['off', 'false', 'no', '0', 'OFF']) assert.equal(parseExposeV6(v), 'off');
  for (const v of ['on', 'yes', 'true', '1', 'auto;x']) {
    assert.throws(
      () => parseExposeV6(v),
      (e: unknown) => e instanceof LabelwiseError && e.code === 'ANCHOR_INVALID_EXPOSE_V6',
    );
  }
});

test('property: parseExpose throws only LabelwiseError and yields only in-range numbers', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.stringMatching(/^((tcp|udp|TCP)\/\d{1,6}(:\d{1,6})?,?){0,5}$/),
      ),
      (input) => {
        try {
          for (const entry of parseExpose(input)) {
            assert.ok(entry.proto === 'tcp' || entry.proto === 'udp');
            for (const port of [entry.port, entry.backendPort])
              assert.ok(Number.isInteger(port) && port >= 1 && port <= 65535);
          }
        } catch (error) {
          assert.ok(error instanceof LabelwiseError, String(error));
        }
      },
    ),
    { numRuns: 2000 },
  );
});

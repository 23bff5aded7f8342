import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { validIpv4 } from '../../src/anchor/addresses.js';
import { LabelwiseError } from '../../src/base/errors.js';
import { loadConfig } from '../../src/anchor/index.js';
import { parseGoDuration } from '../../src/anchor/duration.js';

const VARIABLES = [
  'ANCHORD_LABEL_SELECTOR',
  'ANCHORD_PROJECT',
  'COMPOSE_PROJECT_NAME',
  'ANCHORD_EXT_NETWORK',
  'ANCHORD_EXT_IFACE',
  'ANCHORD_SHARED_NETWORK',
  'ANCHORD_POLL_INTERVAL',
  'ANCHORD_MODE',
  'ANCHORD_LOG_LEVEL',
  'ANCHORD_METRICS_ADDR',
  'DOCKER_HOST',
] as const;

const value = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '',
    'a=1',
    'a=1,a=2',
    'nokey',
    '30s',
    '2m30s',
    '-1',
    'tcp://h:1',
    'unix:///x',
    ':0',
    '[::1]:9',
    'eth0',
  ),
);

test('property: loadConfig throws only LabelwiseError naming a variable, for any environment', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.constantFrom(...VARIABLES), value), (env) => {
      try {
        const { config } = loadConfig(env);
        assert.ok(config.pollIntervalMs > 0);
        assert.match(config.extIface, /^[A-Za-z0-9_.-]{1,15}$/);
      } catch (error) {
        assert.ok(error instanceof LabelwiseError, String(error));
        assert.ok(error.source.env !== undefined, `no env in ${error.code}`);
      }
    }),
    { numRuns: 3000 },
  );
});

test('property: parseGoDuration never throws and gives positive finite milliseconds or undefined', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.stringMatching(/^(\d{1,4}(\.\d{1,3})?(h|m|s|ms|us|ns)){1,4}$/),
      ),
      (text) => {
        const ms = parseGoDuration(text);
        assert.ok(ms === undefined || (Number.isFinite(ms) && ms >= 0));
      },
    ),
    { numRuns: 3000 },
  );
});

test('validIpv4 agrees with ipaddr.js on canonical form and the refused ranges', () => {
  const part = fc.oneof(
    fc.integer({ min: 0, max: 300 }).map(String),
    fc.constantFrom('00', '01', '010', '', ' 1', '-1', 'a', '1e1', '0x1'),
  );
  fc.assert(
    fc.property(fc.array(part, { minLength: 3, maxLength: 5 }), (parts) => {
      const text = parts.join('.');
      let want: string | undefined;
      if (text.length <= 15 && ipaddr.IPv4.isValidFourPartDecimal(text)) {
        const address = ipaddr.IPv4.parse(text);
        const range = address.range();
        want = ['unspecified', 'broadcast', 'multicast'].includes(range)
          ? undefined
          : address.toString();
      }
      assert.equal(validIpv4(text), want, text);
    }),
    { numRuns: 3000 },
  );
});

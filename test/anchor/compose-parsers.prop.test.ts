// Property tests of the Compose loader's parsers: interpolation, dotenv and the whole check
// never throw on arbitrary input, and every problem points into the files given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { interpolate, lookupIn } from '../../src/anchor/compose/interpolate.js';
import { parseDotEnv } from '../../src/anchor/compose/dotenv.js';
import { checkFiles } from './compose-helpers.js';

const template = fc
  .array(
    fc.oneof(
      fc.constantFrom('$', '$$', '${', '}', '${A', ':-', '-', ':?', '?', ':+', '+', 'A', '_', ' '),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 16 },
  )
  .map((parts) => parts.join(''));

test('property: interpolation never throws and reports at most one error', () => {
  fc.assert(
    fc.property(
      fc.oneof(template, fc.string({ maxLength: 60 })),
      fc.dictionary(
        fc.constantFrom('A', 'B', '__proto__', 'constructor'),
        fc.string({ maxLength: 5 }),
      ),
      (text, vars) => {
        const result = interpolate(text, lookupIn(vars));
        assert.equal(typeof result.text, 'string');
        assert.ok(result.problems.filter((p) => p.severity === 'error').length <= 1);
      },
    ),
    { numRuns: 3000 },
  );
});

test('property: text without "$" is left as it is', () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 60 }).filter((t) => !t.includes('$')),
      (text) => {
        assert.deepEqual(
          interpolate(text, () => 'x'),
          { text, problems: [] },
        );
      },
    ),
  );
});

test('property: dotenv parsing never throws; problems carry a line inside the text', () => {
  fc.assert(
    fc.property(
      fc
        .array(
          fc.oneof(
            fc.constantFrom('A=1', 'export B="x', "C='y'", '#c', 'D', '=', ' ', '\n', '"', '\\'),
            fc.string({ maxLength: 6 }),
          ),
          { maxLength: 12 },
        )
        .map((p) => p.join('')),
      (text) => {
        const result = parseDotEnv(text);
        const lines = text.split('\n').length;
        for (const p of result.problems) assert.ok(p.line >= 1 && p.line <= lines, `${p.line}`);
      },
    ),
    { numRuns: 2000 },
  );
});

const yamlish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'services:',
        '  a:',
        '  b: *x',
        '    environment: *x',
        '    labels:',
        '      - X=1',
        '      ANCHORD_LABEL_SELECTOR: r=1',
        '      anchord.expose: tcp/80',
        '    command: network-anchor',
        '    extends: a',
        '    extends: { file: other.yaml, service: a }',
        '    env_file: [x.env]',
        '    ports: !reset []',
        '    labels: !override { a: b }',
        '<<: *x',
        'x: &x {}',
        'y: &y [a, b]',
        '    <<: *y',
        'name: ${COMPOSE_PROJECT_NAME:-p}',
        '  - [',
        '{',
        ': :',
      ),
      fc.string({ maxLength: 20 }),
    ),
    { maxLength: 14 },
  )
  .map((lines) => lines.join('\n'));

test('property: the compose check never throws on arbitrary files; problems name a file given', () => {
  const known = new Set(['compose.yaml', 'other.yaml', 'x.env', '.env']);
  fc.assert(
    fc.property(yamlish, yamlish, (text, other) => {
      const report = checkFiles(
        { 'compose.yaml': text, 'other.yaml': other, 'x.env': 'A=1\n' },
        { composeFiles: ['compose.yaml'], directoryName: 'p' },
      );
      for (const d of report.diagnostics) assert.ok(known.has(d.file ?? ''), JSON.stringify(d));
    }),
    { numRuns: 1500 },
  );
});

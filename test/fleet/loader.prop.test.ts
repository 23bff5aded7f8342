// Properties of the loader and the placeholder parser: hostile input never throws or hangs, and
// substitution is exactly one pass over what the text says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { labelsFrom } from '../../src/selector/index.js';
import { loadFleet, prepareFleet, validateFleet } from '../../src/fleet/index.js';
import { parseText, substitute } from '../../src/fleet/resolve/placeholders.js';
import { FLEET } from './helpers.js';

const yamlish = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc
    .array(
      fc.constantFrom(
        'datum: v1alpha1\n',
        'type: Host\n',
        'type: Layer\n',
        'type: File\n',
        'name: x\n',
        'labels:\n',
        '  a: b\n',
        'desired:\n',
        '  path: /x\n',
        '  mode: 0640\n',
        '---\n',
        '- [\n',
        '&a ',
        '*a\n',
        '"\\u0000"\n',
        'match:\n',
        '  oneOf: {a: []}\n',
        'precedence: 1e3\n',
        '{{ host\n',
      ),
      { maxLength: 30 },
    )
    .map((parts) => parts.join('')),
);

test('loading and validating arbitrary files never throws', () => {
  fc.assert(
    fc.property(fc.array(yamlish, { maxLength: 4 }), (texts) => {
      const files = [
        { path: 'fleet.yaml', bytes: FLEET },
        ...texts.map((bytes, i) => ({ path: `d${i % 2}/f${i}.yaml`, bytes })),
      ];
      const fleet = loadFleet(files);
      const report = validateFleet(fleet, {}, prepareFleet(fleet));
      for (const p of [...fleet.problems, ...report.problems]) {
        assert.equal(typeof p.message, 'string');
        assert.ok(p.code.startsWith('FLEET_'));
      }
    }),
    { numRuns: 300 },
  );
});

test('loading arbitrary bytes never throws', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      loadFleet([
        { path: 'fleet.yaml', bytes: FLEET },
        { path: 'x.yaml', bytes },
      ]);
    }),
    { numRuns: 300 },
  );
});

const literal = fc
  .string({ maxLength: 8 })
  .filter((s) => !s.includes('{{') && !s.endsWith('{') && !s.startsWith('}'));
const key = fc.constantFrom('role', 'site', 'a/b');
const part = fc.oneof(
  literal.map((text) => ({ text, out: (_h: string, _l: Record<string, string>) => text })),
  fc.constant({ text: '{{ host }}', out: (h: string) => h }),
  key.map((k) => ({
    text: `{{labels.${k}}}`,
    out: (_h: string, l: Record<string, string>) => l[k] as string,
  })),
  fc.constant({ text: '{{ secrets.token }}', out: () => '{{ secrets.token }}' }),
);

test('substitution is one pass: labels holding {{ stay literal', () => {
  fc.assert(
    fc.property(
      fc.array(part, { maxLength: 6 }),
      fc.constantFrom('{{ host }}', 'x', '{{'),
      (parts, value) => {
        const text = parts.map((p) => p.text).join('');
        const labels = { role: value, site: 'london', 'a/b': 'c' };
        const parsed = parseText(text);
        assert.ok(parsed.ok, text);
        if (!parsed.ok) return;
        const expected = parts.map((p) => p.out('web-001', labels)).join('');
        if (typeof parsed.value === 'string') assert.equal(parsed.value, expected);
        else {
          const result = substitute(parsed.value, 'web-001', labelsFrom(labels));
          assert.ok(result.ok);
          if (result.ok) assert.equal(result.value, expected);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('parseText never throws on arbitrary text', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 100 }), (text) => {
      const parsed = parseText(text);
      if (!parsed.ok) assert.match(parsed.message, /placeholder|unclosed/);
    }),
    { numRuns: 500 },
  );
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LabelwiseError,
  diagnosticFromError,
  diagnosticsJson,
  formatDiagnostic,
  sortDiagnostics,
} from '../../src/base/index.js';
import type { Diagnostic } from '../../src/base/index.js';

test('one text layout: location, severity, code, object, message, then the hint', () => {
  const d: Diagnostic = {
    severity: 'error',
    code: 'FLEET_X',
    object: 'host web-1',
    file: 'fleet/a.yaml',
    line: 3,
    column: 5,
    message: 'bad',
    hint: 'fix it',
  };
  assert.equal(
    formatDiagnostic(d),
    'fleet/a.yaml:3:5: error FLEET_X [host web-1]: bad\n  hint: fix it',
  );
  assert.equal(formatDiagnostic({ severity: 'warning', code: 'C', message: 'm' }), 'warning C: m');
});

test('every field is escaped: input cannot reach the terminal with control characters', () => {
  const text = formatDiagnostic({
    severity: 'error',
    code: 'C',
    file: 'a\u001b]0;pwned\u0007.yaml',
    object: 'x\ny',
    path: 'spec.\u001b[2J',
    message: 'm\u001b[31m',
    hint: 'h\u0000',
  });
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point
  assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f]/);
  assert.match(text, /a\\x1b\]0;pwned\\x07\.yaml/);
});

test('one order: file, line, column, code; by code point; duplicates dropped', () => {
  const list: Diagnostic[] = [
    { severity: 'error', code: 'B', file: 'b.yaml', line: 1, message: 'm' },
    { severity: 'error', code: 'A', file: 'a.yaml', line: 10, message: 'm' },
    { severity: 'warning', code: 'A', file: 'a.yaml', line: 2, message: 'm' },
    { severity: 'warning', code: 'A', file: 'a.yaml', line: 2, message: 'm' },
    { severity: 'error', code: 'Z', message: 'whole input' },
    { severity: 'error', code: 'A', file: 'B.yaml', message: 'm' },
  ];
  assert.deepEqual(
    sortDiagnostics(list).map((d) => `${d.file ?? '-'}:${d.line ?? ''}:${d.code}`),
    ['-::Z', 'B.yaml::A', 'a.yaml:2:A', 'a.yaml:10:A', 'b.yaml:1:B'],
  );
});

test('one JSON shape: diagnostics with counts, keys in a fixed order', () => {
  const json = diagnosticsJson([
    { message: 'w', code: 'W', severity: 'warning', line: 1, file: 'f' },
    { code: 'E', severity: 'error', message: 'e', hint: undefined },
  ]);
  assert.equal(json.errors, 1);
  assert.equal(json.warnings, 1);
  assert.deepEqual(Object.keys(json.diagnostics[1] as object), [
    'severity',
    'code',
    'file',
    'line',
    'message',
  ]);
  assert.equal('hint' in (json.diagnostics[0] as object), false);
});

test('a LabelwiseError becomes a diagnostic with its hint and location kept', () => {
  const error = new LabelwiseError(
    'X_Y',
    'broken',
    { file: 'f.yaml', line: 2, col: 3, path: 'a.b' },
    'do this',
  );
  assert.deepEqual(diagnosticFromError(error, 'fleet'), {
    severity: 'error',
    code: 'X_Y',
    module: 'fleet',
    file: 'f.yaml',
    line: 2,
    column: 3,
    path: 'a.b',
    message: 'broken',
    hint: 'do this',
  });
  const expr = diagnosticFromError(new LabelwiseError('S', 'at 4', { offset: 4 }));
  assert.equal(expr.column, 5);
  assert.equal(
    diagnosticFromError(new LabelwiseError('A', 'm', { env: 'ANCHORD_X' })).object,
    'env ANCHORD_X',
  );
});

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
    code: 'FLEET_INVALID_DOCUMENT',
    object: 'host web-1',
    file: 'fleet/a.yaml',
    line: 3,
    column: 5,
    message: 'bad',
    hint: 'fix it',
  };
  assert.equal(
    formatDiagnostic(d),
    'fleet/a.yaml:3:5: error FLEET_INVALID_DOCUMENT [host web-1]: bad\n  hint: fix it',
  );
  assert.equal(
    formatDiagnostic({ severity: 'warning', code: 'YAML_SYNTAX', message: 'm' }),
    'warning YAML_SYNTAX: m',
  );
});

test('every field is escaped: input cannot reach the terminal with control characters', () => {
  const text = formatDiagnostic({
    severity: 'error',
    code: 'YAML_SYNTAX',
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
    { severity: 'error', code: 'READ_TOO_LARGE', file: 'b.yaml', line: 1, message: 'm' },
    { severity: 'error', code: 'YAML_SYNTAX', file: 'a.yaml', line: 10, message: 'm' },
    { severity: 'warning', code: 'YAML_SYNTAX', file: 'a.yaml', line: 2, message: 'm' },
    { severity: 'warning', code: 'YAML_SYNTAX', file: 'a.yaml', line: 2, message: 'm' },
    { severity: 'error', code: 'READ_UNREADABLE', message: 'whole input' },
    { severity: 'error', code: 'YAML_SYNTAX', file: 'B.yaml', message: 'm' },
  ];
  assert.deepEqual(
    sortDiagnostics(list).map((d) => `${d.file ?? '-'}:${d.line ?? ''}:${d.code}`),
    [
      '-::READ_UNREADABLE',
      'B.yaml::YAML_SYNTAX',
      'a.yaml:2:YAML_SYNTAX',
      'a.yaml:10:YAML_SYNTAX',
      'b.yaml:1:READ_TOO_LARGE',
    ],
  );
});

test('one JSON shape: diagnostics with counts, keys in a fixed order', () => {
  const json = diagnosticsJson([
    { message: 'w', code: 'READ_SYMLINK_OUTSIDE', severity: 'warning', line: 1, file: 'f' },
    { code: 'READ_UNREADABLE', severity: 'error', message: 'e', hint: undefined },
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
  const error = new LabelwiseError('FLEET_INVALID_DOCUMENT', 'broken', {
    source: { file: 'f.yaml', line: 2, col: 3, path: 'a.b' },
    hint: 'do this',
  });
  assert.deepEqual(diagnosticFromError(error, 'fleet'), {
    severity: 'error',
    code: 'FLEET_INVALID_DOCUMENT',
    module: 'fleet',
    file: 'f.yaml',
    line: 2,
    column: 3,
    path: 'a.b',
    message: 'broken',
    hint: 'do this',
  });
  const expr = diagnosticFromError(
    new LabelwiseError('SELECTOR_EXPECTED_KEY', 'at 4', { source: { offset: 4 } }),
  );
  assert.equal(expr.column, 5);
  assert.equal(
    diagnosticFromError(
      new LabelwiseError('ANCHOR_INVALID_CONFIG', 'm', { source: { env: 'ANCHORD_X' } }),
    ).object,
    'env ANCHORD_X',
  );
});

test('codes are a closed type: an unlisted code is a type error, a witness is carried', () => {
  // @ts-expect-error -- no codes.ts lists NOT_A_CODE, so tsc (npm run lint) refuses it
  const unlisted = new LabelwiseError('NOT_A_CODE', 'm');
  assert.equal(unlisted.code, 'NOT_A_CODE');
  const error = new LabelwiseError('SELECTOR_EXPECTED_KEY', 'm', { witness: { tier: 'web' } });
  assert.deepEqual(diagnosticFromError(error).witness, { tier: 'web' });
  assert.equal(error.kind, 'input');
});

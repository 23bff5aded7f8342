/**
 * Input echoed back is cut to a bounded length. The repro: a 1 MB selector value was echoed
 * whole, twice (message and excerpt), and a label copied into the report's diagnostics whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LabelwiseError,
  MAX_MESSAGE,
  boundText,
  diagnosticsJson,
  formatDiagnostic,
} from '../../src/base/index.js';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';

const MEGABYTE = 'x'.repeat(1024 * 1024);

test('boundText keeps short text, and the start and end of long text, within the bound', () => {
  assert.equal(boundText('short'), 'short');
  const cut = boundText(`start ${MEGABYTE} end`);
  assert.ok(cut.length <= MAX_MESSAGE, String(cut.length));
  assert.ok(cut.startsWith('start xxx'));
  assert.ok(cut.endsWith('xxx end'));
  assert.match(cut, / … \[\d+ characters cut\] … /);
  // A character outside the BMP is never split in half.
  const emoji = boundText('😀'.repeat(2000), 101);
  assert.doesNotMatch(
    emoji,
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/,
  );
});

test('errors and diagnostics bound every field that echoes input', () => {
  const error = new LabelwiseError('YAML_SYNTAX', `bad value "${MEGABYTE}"`, { hint: MEGABYTE });
  assert.ok(error.message.length <= MAX_MESSAGE);
  assert.ok((error.hint ?? '').length <= MAX_MESSAGE);
  const label = `label team=${MEGABYTE}`;
  const json = diagnosticsJson([
    { severity: 'error', code: 'YAML_SYNTAX', object: label, message: MEGABYTE, path: MEGABYTE },
  ]);
  const shown = JSON.stringify(json);
  assert.ok(shown.length < 4 * MAX_MESSAGE, String(shown.length));
  const text = formatDiagnostic({
    severity: 'error',
    code: 'YAML_SYNTAX',
    object: label,
    message: 'm',
  });
  assert.ok(text.length < 2 * MAX_MESSAGE);
});

test('a 1 MB selector value is echoed cut, in text and in --json', async () => {
  for (const json of [false, true]) {
    const io = memoryIO();
    const code = await run(['selector', 'parse', `a=${MEGABYTE}`, ...(json ? ['--json'] : [])], io);
    assert.equal(code, 1);
    const out = io.out + io.err;
    assert.match(out, /SELECTOR_INVALID_VALUE/);
    assert.match(out, /characters cut/);
    assert.ok(out.length < 4 * MAX_MESSAGE, `${out.length} characters`);
  }
});

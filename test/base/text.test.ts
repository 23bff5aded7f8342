import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareText, escapeControl, excerptLine } from '../../src/base/index.js';

test('escapeControl makes terminal escape sequences visible', () => {
  assert.equal(escapeControl('a\u001b[2Jb'), 'a\\x1b[2Jb');
  assert.equal(escapeControl('x\u009by\u2028z'), 'x\\x9by\\u2028z');
  assert.equal(escapeControl('keep\ttab\nline'), 'keep\ttab\nline');
  assert.equal(escapeControl('one\nline\t', true), 'one\\nline\\t');
});

test('compareText orders by code point, never by locale', () => {
  // sv_SE collates w with v and tr_TR has a dotless i; code point order has neither.
  const words = ['w', 'v', 'z', 'ı', 'i', 'I', 'Z', 'ä', '😀', '\uffff'];
  assert.deepEqual([...words].sort(compareText), [
    'I',
    'Z',
    'i',
    'v',
    'w',
    'z',
    'ä',
    'ı',
    '\uffff',
    '😀',
  ]);
  assert.equal(compareText('ab', 'abc') < 0, true);
  assert.equal(compareText('abc', 'abc'), 0);
});

test('excerptLine quotes one line, escaped and bounded, never the file', () => {
  const text = 'first\nsecond \u001b[31mred\nthird';
  assert.equal(excerptLine(text, 2), 'second \\x1b[31mred');
  assert.equal(excerptLine(text, 4), undefined);
  assert.equal(excerptLine('x'.repeat(500), 1, 10), 'xxxxxxxxxx…');
});

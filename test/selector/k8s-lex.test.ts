// The lexer on its own (STYLE.md docs/selector.md, "The model"): input → token kinds, before any parse is tested.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lex } from '../../src/selector/syntax/k8s-lex.js';
import type { TokenKind } from '../../src/selector/syntax/k8s-lex.js';

interface LexCase {
  name: string;
  input: string;
  kinds: TokenKind[];
  texts?: string[];
  offsets?: number[];
}

const cases: LexCase[] = [
  { name: 'empty input is just end', input: '', kinds: ['end'], offsets: [0] },
  { name: 'whitespace kinds are skipped', input: ' \t\r\n', kinds: ['end'], offsets: [4] },
  { name: 'identifier', input: 'app', kinds: ['identifier', 'end'], texts: ['app', ''] },
  {
    name: 'prefixed key with dots and slash is one identifier',
    input: 'example.com/app-name_x',
    kinds: ['identifier', 'end'],
  },
  { name: 'in keyword', input: 'in', kinds: ['in', 'end'] },
  { name: 'notin keyword', input: 'notin', kinds: ['notin', 'end'] },
  {
    name: 'keywords are whole words only',
    input: 'inx notinx IN NotIn',
    kinds: ['identifier', 'identifier', 'identifier', 'identifier', 'end'],
  },
  { name: '! alone', input: '!', kinds: ['not', 'end'] },
  { name: '!= beats !', input: '!=', kinds: ['neq', 'end'] },
  { name: '= alone', input: '=', kinds: ['eq', 'end'] },
  { name: '== beats =', input: '==', kinds: ['deq', 'end'] },
  { name: '=== is == then =', input: '===', kinds: ['deq', 'eq', 'end'], texts: ['==', '=', ''] },
  { name: '!! is two nots', input: '!!', kinds: ['not', 'not', 'end'] },
  { name: '=( is = then (', input: '=(', kinds: ['eq', 'open', 'end'] },
  { name: '!=( splits after !=', input: '!=(', kinds: ['neq', 'open', 'end'] },
  { name: '> and <', input: '> <', kinds: ['gt', 'lt', 'end'] },
  { name: '>= is > then =', input: '>=', kinds: ['gt', 'eq', 'end'] },
  { name: 'parens and comma', input: '(,)', kinds: ['open', 'comma', 'close', 'end'] },
  {
    name: 'equality requirement',
    input: 'a=b',
    kinds: ['identifier', 'eq', 'identifier', 'end'],
    offsets: [0, 1, 2, 3],
  },
  {
    name: 'no whitespace needed around symbols',
    input: 'a!=b,!c',
    kinds: ['identifier', 'neq', 'identifier', 'comma', 'not', 'identifier', 'end'],
  },
  {
    name: 'set expression with every whitespace kind',
    input: 'x\tin\r\n( a ,b )',
    kinds: ['identifier', 'in', 'open', 'identifier', 'comma', 'identifier', 'close', 'end'],
    offsets: [0, 2, 6, 8, 10, 11, 13, 14],
  },
  {
    name: 'in in (in): the lexer says keyword, the parser decides',
    input: 'in in (in)',
    kinds: ['in', 'in', 'open', 'in', 'close', 'end'],
  },
  {
    name: 'non-breaking space is not whitespace',
    input: 'a\u00a0b',
    kinds: ['identifier', 'end'],
    texts: ['a\u00a0b', ''],
  },
  {
    name: 'unicode identifiers pass through (validated later)',
    input: 'ключ=значение',
    kinds: ['identifier', 'eq', 'identifier', 'end'],
  },
  {
    name: 'quotes and slashes are identifier characters',
    input: '"a"/\'b\'',
    kinds: ['identifier', 'end'],
  },
];

for (const c of cases) {
  test(`lexer: ${c.name}`, () => {
    const tokens = lex(c.input);
    assert.deepEqual(
      tokens.map((t) => t.kind),
      c.kinds,
    );
    if (c.texts) {
      assert.deepEqual(
        tokens.map((t) => t.text),
        c.texts,
      );
    }
    if (c.offsets) {
      assert.deepEqual(
        tokens.map((t) => t.offset),
        c.offsets,
      );
    }
    // Every non-end token's text sits in the input at its offset.
    for (const token of tokens) {
      if (token.kind === 'end') assert.equal(token.offset, c.input.length);
      else assert.equal(c.input.slice(token.offset, token.offset + token.text.length), token.text);
    }
  });
}

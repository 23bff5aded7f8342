import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSelector, formatSelector, matches } from '../../src/selector/index.js';

test('§2.1 parse → print → parse is stable on a mixed selector', () => {
  const text = formatSelector(parseSelector(' b notin (y,x) , a , !c '));
  assert.equal(text, 'a,b notin (x,y),!c');
  assert.equal(formatSelector(parseSelector(text)), text);
  assert.equal(matches(parseSelector(text), { a: '' }), true);
  assert.equal(matches(parseSelector(text), { a: '', c: 'x' }), false);
});

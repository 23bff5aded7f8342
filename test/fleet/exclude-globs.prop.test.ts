// Property: our exclude matcher agrees with picomatch (segment-wise, `dot: true`, a match on any
// parent directory excluding the path) on the glob features docs/fleet.md documents. picomatch is
// the reference for meaning; ours exists because picomatch's RegExp can take exponential time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { excludeMatcher } from '../../src/fleet/documents/exclude-globs.js';

const segmentPart = fc.constantFrom(
  'a',
  'b',
  '.',
  'ab',
  '*',
  '?',
  '[ab]',
  '[a-b]',
  '{a,b}',
  '{b,.a}',
);
const patternSegment = fc.oneof(
  { weight: 1, arbitrary: fc.constant('**') },
  {
    weight: 5,
    arbitrary: fc.array(segmentPart, { minLength: 1, maxLength: 4 }).map((p) => p.join('')),
  },
);
// Deliberate differences, left out here: `**` next to other characters in a segment is a plain
// `*` for us (segment-wise, as the spec says), while picomatch sometimes lets it cross `/`
// (`**{b,c}` matches `a/b` but `**b` does not match `a/b`); and picomatch's trailing `/**` after a segment holding `*` does not match
// that directory itself (`*/**` misses `a`, while `a/**` matches `a`); the spec says `**` is any
// number of segments, none included, so ours matches. Such patterns are left out here.
const pattern = fc
  .array(patternSegment, { minLength: 1, maxLength: 4 })
  .filter((s) => s.every((segment) => segment === '**' || !segment.includes('**')))
  .filter((s) => !(s.length > 1 && s[s.length - 1] === '**' && s[s.length - 2]?.includes('*')))
  .map((s) => s.join('/'));
const pathSegment = fc
  .array(fc.constantFrom('a', 'b', '.'), { minLength: 1, maxLength: 4 })
  .map((s) => s.join(''))
  // picomatch will not let a `*` right after a `.` match nothing (`*.*` misses `a.`); ours does,
  // as a shell does. Names ending in `.` are left out here.
  .filter((s) => !s.endsWith('.'));
const path = fc.array(pathSegment, { minLength: 1, maxLength: 5 }).map((s) => s.join('/'));

function reference(patterns: string[]): (path: string) => boolean {
  const matcher = picomatch(patterns, { dot: true });
  return (p) => {
    const parts = p.split('/');
    for (let i = 1; i <= parts.length; i++) if (matcher(parts.slice(0, i).join('/'))) return true;
    return false;
  };
}

test('exclude matching equals picomatch on the documented glob features', () => {
  fc.assert(
    fc.property(
      fc.array(pattern, { minLength: 1, maxLength: 3 }),
      fc.array(path, { maxLength: 8 }),
      (patterns, paths) => {
        const ours = excludeMatcher(patterns);
        const theirs = reference(patterns);
        for (const p of paths)
          assert.equal(ours(p), theirs(p), `${JSON.stringify(patterns)} on ${p}`);
      },
    ),
    { numRuns: 3000 },
  );
});

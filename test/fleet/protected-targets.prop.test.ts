// The lexical clean under the protected-target check, against Node's `path.posix.resolve` (an
// absolute path resolves without the working directory) on paths made of the pieces that
// matter (`/`, `.`, `..`, names with dots), and the check itself on spellings of the protected
// paths that the fast path must not let through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { posix } from 'node:path';
import fc from 'fast-check';
import {
  cleanAbsolute,
  protectedTargetProblem,
} from '../../src/fleet/resolve/protected-targets.js';

const piece = fc.constantFrom('', '.', '..', '...', '.a', 'a.', 'etc', 'datum', 'x');
const path = fc.array(piece, { maxLength: 6 }).map((parts) => `/${parts.join('/')}`);

test('cleanAbsolute equals posix.resolve of the absolute path', () => {
  fc.assert(
    fc.property(path, (p) => assert.equal(cleanAbsolute(p), posix.resolve(p))),
    { numRuns: 5000 },
  );
});

test('every spelling of a protected path is refused, and its neighbours are not', () => {
  const none = Object.create(null) as Record<string, never>;
  const refused = (target: string): boolean =>
    protectedTargetProblem('File', 'File[f]', target, none) !== undefined;
  for (const target of [
    '/etc/datum',
    '/etc/datum/',
    '//etc/datum',
    '/etc/./datum',
    '/etc/x/../datum/agent.yaml',
    '/etc',
    '/',
    '/var/lib/datum/state',
    '/usr/local/bin/datum',
  ])
    assert.ok(refused(target), target);
  for (const target of [
    '/etc/datumx',
    '/etc/datum.d',
    '/etc/.datum',
    '/var/lib/datum2',
    '/usr/bin/datumd',
  ])
    assert.ok(!refused(target), target);
});

// The commander-free `selector match` (src/cli/selector-match.ts) against the full command: the
// runs it answers print byte for byte what the full command prints, and every other run is left
// to the full command with nothing printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';
import { run as runSelector } from '../../src/cli/selector.js';
import { quickMatch } from '../../src/cli/selector-match.js';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function throughMain(argv: readonly string[], isTTY: boolean): Promise<Outcome> {
  const io = memoryIO({ isTTY });
  const code = await run(['selector', 'match', ...argv], io);
  return { code, stdout: io.out, stderr: io.err };
}

async function fullCommand(argv: readonly string[], isTTY: boolean): Promise<Outcome> {
  const io = memoryIO({ isTTY });
  const code = await runSelector(['match', ...argv], io);
  return { code, stdout: io.out, stderr: io.err };
}

const ANSWERED: readonly (readonly string[])[] = [
  ['tier in (web,api),!canary', '--labels', 'tier=web'],
  ['tier in (web,api),!canary', '--labels', 'tier=db', '--explain'],
  ['app=web,env!=dev', '--labels', 'env=dev', '--explain', '--json'],
  ['--json', '--labels', 'a=b=c', 'a'],
  ['--labels=tier=web', 'tier'],
  ['tier!=frontend,!canary', '--labels', ''],
  ['', '--labels', 'x=y', '--explain'],
  ['!canary,tier notin (db)', '--labels', 'canary=yes,tier=db', '--explain'],
  ['gpu', '--labels', 'gpu=', '--explain', '--explain'],
];

test('the runs the quick path answers print what the full command prints', async () => {
  for (const argv of ANSWERED) {
    assert.notEqual(quickMatch(argv, memoryIO()), undefined, `answered: ${argv.join(' ')}`);
    for (const isTTY of [false, true])
      assert.deepEqual(
        await throughMain(argv, isTTY),
        await fullCommand(argv, isTTY),
        argv.join(' '),
      );
  }
});

const LEFT: readonly (readonly string[])[] = [
  ['app=web', '--labels', 'app=web', '--syntax', 'equality'],
  ['app=web', '--labels', 'app=web', '--profile', 'none'],
  ['app=web', '--labels-json', '{"app":"web"}'],
  ['app=web', '--labels', '-'],
  ['-', '--labels', 'app=web'],
  ['app=web', '--labels'],
  ['app=web', '--labels', '--explain'],
  ['app=web', 'tier=db', '--labels', 'app=web'],
  ['app=web', '--labels', 'app=web', '--labels', 'app=db'],
  ['app=web', '--labels', 'app=web', '--'],
  ['app=web', '--labels', 'app=web', '--help'],
  ['app=web', '--labels', 'app=web', '--format', 'sarif'],
  ['app=web'],
  ['--labels', 'app=web'],
  ['tier in (web', '--labels', 'tier=web'],
  ['tier in (web', '--labels', 'tier=web', '--json'],
  ['app=web', '--labels', 'nokey'],
  ['app=web', '--labels', 'a=1,a=2', '--json'],
];

test('every other run is left to the full command, with nothing printed', async () => {
  for (const argv of LEFT) {
    const io = memoryIO();
    assert.equal(quickMatch(argv, io), undefined, `left: ${argv.join(' ')}`);
    assert.equal(io.out + io.err, '');
  }
});

test('a run left to the full command prints what the full command prints', async () => {
  // Reading stdin or asking for help or a check format is covered by the selector and
  // check-output tests; these are the failures the quick path declines after trying.
  for (const argv of [
    ['tier in (web', '--labels', 'tier=web'],
    ['tier in (web', '--labels', 'tier=web', '--json'],
    ['app=web', '--labels', 'nokey'],
    ['app=web', '--labels', 'a=1,a=2', '--json'],
  ])
    assert.deepEqual(await throughMain(argv, false), await fullCommand(argv, false));
});

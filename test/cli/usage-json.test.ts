import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';

test('a usage error under --json is JSON in the one shape on stdout', async () => {
  for (const args of [
    ['policy', 'lint', '--bogus', '--json'],
    ['fleet', 'validate', '--json', '--no-such-flag'],
    ['build', '--json', '--out'],
  ]) {
    const io = memoryIO();
    assert.equal(await run(args, io), 1, args.join(' '));
    const json = JSON.parse(io.out) as { diagnostics: { code: string }[]; errors: number };
    assert.equal(json.errors, 1);
    assert.equal(json.diagnostics[0]?.code, 'CLI_USAGE');
  }
});

test('without --json a usage error stays text on stderr', async () => {
  const io = memoryIO();
  assert.equal(await run(['policy', 'lint', '--bogus'], io), 1);
  assert.equal(io.out, '');
  assert.match(io.err, /unknown option '--bogus'/);
});

test('a command group run with no command prints its usage and exits 1; help exits 0', async () => {
  for (const group of ['anchor', 'catalog', 'fleet', 'policy', 'selector']) {
    const none = memoryIO();
    assert.equal(await run([group], none), 1, group);
    assert.equal(none.out, '', group);
    assert.match(none.err, new RegExp(`^Usage: labelwise ${group} `), group);
    const help = memoryIO();
    assert.equal(await run([group, 'help'], help), 0, `${group} help`);
    assert.equal(await run([group, '--help'], memoryIO()), 0, `${group} --help`);
  }
});

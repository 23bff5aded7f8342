// Every CLI flag that names a file reads it under the reader's rules: a device (`/dev/zero`
// never ends), a FIFO (it would wait for a writer) and a file over the flag's size limit are
// refused with one line naming the file, never a stack trace or a hang. A positional file
// (`fleet merge SHARD…`) is read the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';

const ROOT = join(import.meta.dirname, '..', '..');
const POLICY = join(ROOT, 'examples', 'homelab', 'policy');
const dir = mkdtempSync(join(tmpdir(), 'labelwise-user-files-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const fifo = join(dir, 'pipe');
execFileSync('mkfifo', [fifo]);

/** A sparse file of `bytes` bytes: over a limit without writing it. */
function sized(name: string, bytes: number): string {
  const path = join(dir, name);
  writeFileSync(path, '');
  truncateSync(path, bytes);
  return path;
}

interface FlagCase {
  readonly name: string;
  /** The command line with the file in it. */
  readonly argv: (file: string) => string[];
  /** Over this flag's limit. */
  readonly tooLarge: number;
  /** The code a refused (not unreadable) file is reported under. */
  readonly invalid: string;
}

const FLAGS: readonly FlagCase[] = [
  {
    name: 'selector parse --file',
    argv: (f) => ['selector', 'parse', '--file', f, '--json'],
    tooLarge: 16 * 1024 * 1024 + 1,
    invalid: 'READ_',
  },
  {
    name: 'selector match --labels-file',
    argv: (f) => ['selector', 'match', 'a=b', '--labels-file', f, '--json'],
    tooLarge: 16 * 1024 * 1024 + 1,
    invalid: 'READ_',
  },
  {
    name: 'selector match --labels-json-file',
    argv: (f) => ['selector', 'match', 'a=b', '--labels-json-file', f, '--json'],
    tooLarge: 16 * 1024 * 1024 + 1,
    invalid: 'READ_',
  },
  {
    name: 'policy lint --settings',
    argv: (f) => ['policy', 'lint', POLICY, '--settings', f, '--json'],
    tooLarge: 1024 * 1024 + 1,
    invalid: 'POLICY_INVALID_SETTING',
  },
  {
    name: 'policy matrix --expect',
    argv: (f) => ['policy', 'matrix', POLICY, '--expect', f, '--json'],
    tooLarge: 4 * 1024 * 1024 + 1,
    invalid: 'POLICY_EXPECTATION_INVALID',
  },
  {
    name: 'fleet merge SHARD',
    argv: (f) => ['fleet', 'merge', f, '--json'],
    tooLarge: 256 * 1024 * 1024 + 1,
    invalid: 'FLEET_NOT_A_SHARD',
  },
];

async function cli(argv: string[]) {
  const io = memoryIO({ cwd: dir });
  // The selector commands read stdin only for '-'; none of these cases passes it.
  const code = await run(argv, io);
  return { code, out: io.out, err: io.err };
}

/** The one diagnostic of a refused run, from its `--json` output. */
function diagnostic(out: string): { code: string; file?: string; message: string } {
  const body = JSON.parse(out) as {
    error?: { code: string; file?: string; message: string };
    diagnostics?: { code: string; file?: string; message: string }[];
  };
  const found = body.error ?? body.diagnostics?.[0];
  assert.ok(found, `no diagnostic in ${out}`);
  return found;
}

for (const flag of FLAGS) {
  test(`${flag.name}: /dev/zero is refused at once`, async (t) => {
    if (!existsSync('/dev/zero')) {
      t.skip('no /dev/zero on this system');
      return;
    }
    const r = await cli(flag.argv('/dev/zero'));
    assert.equal(r.code, 1);
    const d = diagnostic(r.out);
    assert.ok(d.code.startsWith(flag.invalid), d.code);
    assert.equal(d.file, '/dev/zero');
    assert.match(d.message, /refusing to read the [a-z ]*file: it lies in \/dev/);
  });

  test(`${flag.name}: a FIFO is refused, never waited on`, async () => {
    const r = await cli(flag.argv(fifo));
    assert.equal(r.code, 1);
    const d = diagnostic(r.out);
    assert.ok(d.code.startsWith(flag.invalid), d.code);
    assert.match(d.message, /not a regular file/);
  });

  test(`${flag.name}: a file over the limit is refused before it is read`, async () => {
    const big = sized(`${flag.name.replace(/\W+/g, '-')}.big`, flag.tooLarge);
    const r = await cli(flag.argv(big));
    assert.equal(r.code, 1);
    const d = diagnostic(r.out);
    assert.ok(d.code.startsWith(flag.invalid), d.code);
    assert.match(d.message, /over the limit of \d+ bytes/);
  });

  test(`${flag.name}: a missing file could not run (exit 3), in one line`, async () => {
    const argv = flag.argv(join(dir, 'absent')).filter((a) => a !== '--json');
    const r = await cli(argv);
    assert.equal(r.code, 3);
    assert.equal(r.err.trim().split('\n').length, 1, r.err);
    assert.match(r.err, /absent/);
  });
}

test('the refusal of a device is one line in text mode too', async () => {
  const r = await cli(['policy', 'matrix', POLICY, '--expect', '/dev/zero']);
  assert.equal(r.code, 1);
  assert.equal(r.err.trim().split('\n').length, 2, r.err); // the line and its hint
  assert.match(
    r.err,
    /^labelwise policy: \/dev\/zero: error POLICY_EXPECTATION_INVALID: refusing to read the expectations file/,
  );
});

test('a settings file that is not YAML names its line, through the shared parser', async () => {
  const path = join(dir, 'settings.yaml');
  writeFileSync(path, 'defaultPolicy: deny\ndefaultPolicy: deny\n');
  const r = await cli(['policy', 'lint', POLICY, '--settings', path, '--json']);
  assert.equal(r.code, 1);
  const d = diagnostic(r.out) as { code: string; line?: number; message: string };
  assert.equal(d.code, 'POLICY_INVALID_SETTING');
  assert.equal(d.line, 2);
  assert.match(d.message, /^settings file is not valid YAML: /);
});

// `doctor`'s subcommands and exit codes, with a fake Docker list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runAnchorDaemon } from '../../src/anchor/run.js';
import type { WrapRebinderPort } from '../../src/anchor/rebinder/wrap-rebinder.js';

function doctor(args: string[], list: WrapRebinderPort['list'] = () => Promise.resolve([])) {
  const out = { stdout: '', stderr: '', log: '' };
  const docker: WrapRebinderPort = {
    list,
    recreate: () => Promise.reject(new Error('doctor never recreates')),
    watchStarts: () => Promise.reject(new Error('doctor never watches')),
  };
  const code = runAnchorDaemon({
    env: {},
    modeArgument: 'doctor',
    doctorArguments: args,
    wrapDocker: docker,
    write: (line) => (out.log += line),
    print: (text) => (out.stdout += text),
    writeError: (text) => (out.stderr += text),
    signal: new AbortController().signal,
  });
  return code.then((c) => ({ code: c, ...out }));
}

test('doctor without a subcommand, or with -h: usage on stderr, exit 0', async () => {
  for (const args of [[], ['-h'], ['--help']]) {
    const r = await doctor(args);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /^Usage: anchord doctor <subcommand>\n/);
    assert.match(r.stderr, /stale-netns {3}Report dependents in dead network namespaces/);
    assert.equal(r.stdout, '');
  }
});

test('doctor with an unknown subcommand: usage, then fatal, exit 1', async () => {
  const r = await doctor(['nope']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^Usage:/);
  const fatal = JSON.parse(r.log) as Record<string, unknown>;
  assert.deepEqual([fatal.msg, fatal.err], ['fatal', 'unknown doctor subcommand "nope"']);
});

test('doctor stale-netns with an extra argument is fatal, exit 1', async () => {
  const r = await doctor(['stale-netns', 'x']);
  assert.equal(r.code, 1);
  assert.equal(
    (JSON.parse(r.log) as Record<string, unknown>).err,
    'doctor stale-netns: unexpected arguments [x]',
  );
});

test('doctor stale-netns: the report, exit 0 with or without victims; a Docker failure exits 1', async () => {
  const none = await doctor(['stale-netns']);
  assert.deepEqual([none.code, none.stdout], [0, 'No dead-netns dependents found.\n']);
  const found = await doctor(['stale-netns'], () =>
    Promise.resolve([{ id: 'd1', names: ['/traefik'], networkMode: 'container:gone', labels: {} }]),
  );
  assert.equal(found.code, 0);
  assert.match(
    found.stdout,
    /^Found 1 dependent\(s\) in dead netns across 1 target\(s\):\n\n {2}dead target: gone {2}\(1 victim\(s\)\)\n {4}traefik\n/,
  );
  const down = await doctor(['stale-netns'], () => Promise.reject(new Error('connect ENOENT')));
  assert.equal(down.code, 1);
  assert.equal(
    (JSON.parse(down.log) as Record<string, unknown>).err,
    'ContainerList: connect ENOENT',
  );
});

// `doctor stale-netns` on a real Docker Engine: a dependant whose namespace owner was removed is
// reported under the gone owner's ID with its Compose command; a live one is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skipWithout } from '../support/capabilities.js';
import { runAnchorDaemon } from '../../src/anchor/run.js';
import { must, sh, startSleeper } from './docker-env.js';

const run = `lw-doctor-${process.pid}`;

test('doctor stale-netns: reports the dependant of a removed owner, not of a live one', async (t) => {
  if (skipWithout(t, 'docker')) return;
  const names = ['gone', 'kept', 'orphan', 'fine'].map((n) => `${run}-${n}`);
  const [gone, kept, orphan, fine] = names as [string, string, string, string];
  t.after(() => {
    sh('docker', ['rm', '-f', ...names]);
  });
  const goneId = startSleeper(run, gone);
  startSleeper(run, kept);
  startSleeper(run, orphan, [
    '--network',
    `container:${gone}`,
    '--label',
    'com.docker.compose.project=shop',
    '--label',
    'com.docker.compose.service=traefik',
  ]);
  startSleeper(run, fine, ['--network', `container:${kept}`]);
  must('docker', ['rm', '-f', gone]);

  let stdout = '';
  const code = await runAnchorDaemon({
    env: {},
    modeArgument: 'doctor',
    doctorArguments: ['stale-netns'],
    write: () => {},
    print: (text) => (stdout += text),
    signal: new AbortController().signal,
  });
  assert.equal(code, 0);
  assert.match(stdout, /^Found \d+ dependent\(s\) in dead netns across \d+ target\(s\):\n/);
  const block = stdout.split('\n\n').find((b) => b.includes(`dead target: ${goneId}`));
  assert.ok(block !== undefined, stdout);
  assert.match(
    block,
    new RegExp(
      `\\n {4}${orphan}\\n {6}→ docker compose -p shop up -d --no-deps --force-recreate traefik`,
    ),
  );
  assert.doesNotMatch(stdout, new RegExp(`${fine}\\b`));
});

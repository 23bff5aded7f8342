// The external-rebinder on a real Docker Engine: another stack tears its network down and brings
// it back under the same name; the follower is released so that `network rm` can proceed, then
// attached to the new network once the other stack's container is back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skipWithout } from '../support/capabilities.js';
import { runAnchorDaemon } from '../../src/anchor/run.js';
import { TEST_LABEL, must, sh, startSleeper, waitFor } from './docker-env.js';

const run = `lw-follow-${process.pid}`;

function start(name: string, network: string): string {
  return startSleeper(run, name, ['--network', network]);
}

function attachedNetworkId(container: string, network: string): string {
  return sh('docker', [
    'inspect',
    '-f',
    `{{with index .NetworkSettings.Networks "${network}"}}{{.NetworkID}}{{end}}`,
    container,
  ]).stdout.trim();
}

test('external-rebinder mode: releases the follower for network rm, then follows the new network', async (t) => {
  if (skipWithout(t, 'docker')) return;
  const network = `${run}-net`;
  const follower = `${run}-follower`;
  const member = `${run}-member`;
  const lines: Record<string, unknown>[] = [];
  const controller = new AbortController();
  t.after(() => {
    controller.abort('SIGTERM');
    sh('docker', ['rm', '-f', follower, member]);
    sh('docker', ['network', 'rm', network]);
  });
  const firstId = must('docker', ['network', 'create', '--label', `${TEST_LABEL}=${run}`, network]);
  start(follower, network);
  start(member, network);
  assert.equal(attachedNetworkId(follower, network), firstId);

  const exit = runAnchorDaemon({
    env: {
      ANCHORD_FOLLOW_NETWORK: network,
      ANCHORD_FOLLOW_TARGET: follower,
      ANCHORD_FOLLOW_EVENT_BACKOFF: '0',
      ANCHORD_METRICS_ADDR: '',
      ANCHORD_LOG_LEVEL: 'debug',
    },
    modeArgument: 'external-rebinder',
    settle: { pollMs: 200, quietMs: 600, maxWaitMs: 15_000, connectAttempts: 4 },
    write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
    signal: controller.signal,
  });
  await waitFor('the start-up recheck', () =>
    lines.some(
      (l) => l.msg === 'bootstrap recheck: follower already attached to current network ID',
    ),
  );

  // The other stack goes down: its member leaves, the follower is the last endpoint and lets go.
  must('docker', ['rm', '-f', member]);
  await waitFor('the follower to be released', () =>
    lines.find((l) => l.msg === 'park: released follower to unblock target network teardown'),
  );
  assert.equal(attachedNetworkId(follower, network), '');
  must('docker', ['network', 'rm', network]);

  // ...and comes back: a new network under the same name, then its member.
  const secondId = must('docker', [
    'network',
    'create',
    '--label',
    `${TEST_LABEL}=${run}`,
    network,
  ]);
  assert.notEqual(secondId, firstId);
  start(member, network);
  await waitFor(
    'the follower on the new network',
    () => attachedNetworkId(follower, network) === secondId,
    30_000,
    100,
  );
  const connected = await waitFor('the reattach to be logged', () =>
    lines.find((l) => l.msg === 'reattach: follower connected to current network ID'),
  );
  assert.equal(connected.network_id, secondId);
  assert.ok(lines.some((l) => l.msg === 'target stack settled; reattaching follower'));

  controller.abort('SIGTERM');
  assert.equal(await exit, 0);
});

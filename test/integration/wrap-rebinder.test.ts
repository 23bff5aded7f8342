// The wrap-rebinder's recreate on a real Docker Engine: a wrap-anchor joined to an owner's
// network namespace, the owner recreated under the same name, and the anchor followed into the
// new namespace. Names carry the run id so parallel runs never collide.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Docker from 'dockerode';
import { skipWithout } from '../support/capabilities.js';
import {
  listWrapContainers,
  recreateWithNetworkMode,
} from '../../src/anchor/io/wrap-rebinder-docker.js';
import { buildTargetPool, driftedAnchors } from '../../src/anchor/rebinder/wrap-target-pool.js';
import { runAnchorDaemon } from '../../src/anchor/run.js';
import { must, sh, startSleeper, waitFor } from './docker-env.js';

const run = `lw-modes-${process.pid}`;
const project = `${run}-wrap`;

function startOwner(name: string): string {
  return startSleeper(run, name);
}

/** A wrap-anchor of `anchorProject` in `owner`'s network namespace. */
function startWrapAnchor(name: string, owner: string, anchorProject: string): void {
  startSleeper(run, name, [
    '--network',
    `container:${owner}`,
    '--label',
    `com.docker.compose.project=${anchorProject}`,
  ]);
}

function netnsOf(id: string): string {
  const pid = must('docker', ['inspect', '-f', '{{.State.Pid}}', id]);
  return must('readlink', [`/proc/${pid}/ns/net`]);
}

test('wrap-rebinder: a wrap-anchor follows its namespace owner when the owner is recreated', async (t) => {
  if (skipWithout(t, 'docker')) return;
  const docker = new Docker();
  const owner = `${run}-owner`;
  const anchor = `${run}-anchor`;
  t.after(() => {
    sh('docker', ['rm', '-f', owner, anchor]);
  });
  startOwner(owner);
  startWrapAnchor(anchor, owner, project);

  must('docker', ['rm', '-f', owner]);
  const newOwnerId = startOwner(owner);

  const all = await listWrapContainers(docker);
  // The stored reference is the old owner's ID, which no longer exists: an orphan for anchord
  // until the owner is named by a label. A name is what the operator wrote; find it by the anchor.
  const { orphans } = buildTargetPool(all, project, '');
  const anchorId = must('docker', ['inspect', '-f', '{{.Id}}', anchor]);
  assert.deepEqual(
    orphans.map((o) => o.anchorId),
    [anchorId],
  );
  const pool = new Map([[owner, [anchorId]]]);
  const recreates = driftedAnchors(pool, all);
  assert.deepEqual(recreates, [{ anchorId, target: owner, networkMode: `container:${owner}` }]);

  const newAnchorId = await recreateWithNetworkMode(docker, anchorId, recreates[0]!.networkMode);
  assert.notEqual(newAnchorId, anchorId);
  assert.equal(must('docker', ['inspect', '-f', '{{.State.Running}}', newAnchorId]), 'true');
  assert.equal(must('docker', ['inspect', '-f', '{{.Name}}', newAnchorId]), `/${anchor}`);
  assert.equal(netnsOf(newAnchorId), netnsOf(newOwnerId));
  assert.equal(
    must('docker', [
      'inspect',
      '-f',
      '{{index .Config.Labels "com.docker.compose.project"}}',
      newAnchorId,
    ]),
    project,
  );

  // Now the pool finds it by its owner's ID, and the recheck sees no drift.
  const after = await listWrapContainers(docker);
  const rebuilt = buildTargetPool(after, project, '');
  assert.deepEqual(Object.fromEntries(rebuilt.pool), { [owner]: [newAnchorId] });
  assert.deepEqual(driftedAnchors(rebuilt.pool, after), []);
});

test('wrap-rebinder mode: the running sidecar follows an owner recreated under its name', async (t) => {
  if (skipWithout(t, 'docker')) return;
  const owner = `${run}-mode-owner`;
  const anchor = `${run}-mode-anchor`;
  const modeProject = `${run}-mode`;
  const lines: Record<string, unknown>[] = [];
  const controller = new AbortController();
  t.after(() => {
    controller.abort('SIGTERM');
    sh('docker', ['rm', '-f', owner, anchor]);
  });
  const firstOwnerId = startOwner(owner);
  startWrapAnchor(anchor, owner, modeProject);
  const firstAnchorId = must('docker', ['inspect', '-f', '{{.Id}}', anchor]);
  assert.equal(netnsOf(firstAnchorId), netnsOf(firstOwnerId));

  const exit = runAnchorDaemon({
    env: {
      COMPOSE_PROJECT_NAME: modeProject,
      ANCHORD_METRICS_ADDR: '',
      ANCHORD_LOG_LEVEL: 'debug',
    },
    modeArgument: 'wrap-rebinder',
    selfId: '',
    write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
    signal: controller.signal,
  });
  await waitFor('the rebinder to pool the anchor under its owner', () =>
    lines.some((l) => l.msg === 'wrap-rebinder: target pool refreshed' && l.targets === 1),
  );

  // Compose's recreate: the owner goes and comes back under the same name with a new ID.
  must('docker', ['rm', '-f', owner]);
  const newOwnerId = startOwner(owner);
  const newAnchorId = await waitFor(
    'the anchor to be recreated into the new owner namespace',
    () => {
      const id = sh('docker', [
        'inspect',
        '-f',
        '{{.Id}} {{.State.Running}}',
        anchor,
      ]).stdout.trim();
      const [current, running] = id.split(' ');
      return current !== undefined && current !== firstAnchorId && running === 'true'
        ? current
        : undefined;
    },
    30_000,
    100,
  );
  assert.equal(netnsOf(newAnchorId), netnsOf(newOwnerId));
  assert.equal(
    must('docker', ['inspect', '-f', '{{.HostConfig.NetworkMode}}', newAnchorId]),
    `container:${newOwnerId}`,
    'Docker resolved the name passed at create to the new owner',
  );
  const followed = lines.find(
    (l) => l.msg === 'tracked target started, recreating affected wrap-anchors',
  );
  assert.equal(followed?.target, owner);
  assert.deepEqual(followed?.anchors, [firstAnchorId]);
  const recreated = await waitFor('the recreate to be logged', () =>
    lines.find((l) => l.msg === 'wrap-rebinder: anchor recreated against live target'),
  );
  assert.deepEqual([recreated?.old_id, recreated?.new_id], [firstAnchorId, newAnchorId]);

  controller.abort('SIGTERM');
  assert.equal(await exit, 0);
  assert.ok(lines.some((l) => l.msg === 'signal received, shutting down'));
});

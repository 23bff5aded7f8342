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
import { TEST_IMAGE, TEST_LABEL, must, sh } from './docker-env.js';

const run = `lw-modes-${process.pid}`;
const project = `${run}-wrap`;

function startOwner(name: string): string {
  return must('docker', [
    'run',
    '-d',
    '--name',
    name,
    '--label',
    `${TEST_LABEL}=${run}`,
    TEST_IMAGE,
    'sleep',
    '600',
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
  must('docker', [
    'run',
    '-d',
    '--name',
    anchor,
    '--network',
    `container:${owner}`,
    '--label',
    `${TEST_LABEL}=${run}`,
    '--label',
    `com.docker.compose.project=${project}`,
    TEST_IMAGE,
    'sleep',
    '600',
  ]);

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

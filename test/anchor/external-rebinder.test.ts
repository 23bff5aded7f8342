// The external-rebinder's decisions and loop with a fake Docker port: park as the last endpoint,
// stay while the other stack has endpoints, settle then reattach, retry on address-in-use,
// reattach a diverged follower at start, restart when asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { LabelwiseError } from '../../src/base/errors.js';
import { ExternalRebinder } from '../../src/anchor/rebinder/external-rebinder.js';
import type {
  ExternalRebinderPort,
  NetworkEvent,
} from '../../src/anchor/rebinder/external-rebinder.js';
import {
  idMatch,
  isAddressInUse,
  isAlreadyConnected,
  isAlreadyNotAttached,
  resolveFollower,
} from '../../src/anchor/rebinder/follow-rules.js';
import type { FollowContainer } from '../../src/anchor/rebinder/follow-rules.js';
import { loadExternalRebinderConfig } from '../../src/anchor/rebinder/rebinder-config.js';

const FOLLOWER = 'f'.repeat(64);

class FakeDocker implements ExternalRebinderPort {
  network = {
    id: 'net-1',
    members: { [FOLLOWER]: 'follower', t1: 'nginx' } as Record<string, string>,
  };
  stored: Record<string, string> = { app_net: 'net-1' };
  calls: string[] = [];
  connectErrors: Error[] = [];
  inspectNetwork(): Promise<{ id: string; members: Record<string, string> }> {
    return Promise.resolve(this.network);
  }
  list() {
    return Promise.resolve([
      {
        id: FOLLOWER,
        names: ['/sync-1'],
        labels: { 'com.docker.compose.project': 'me', 'com.docker.compose.service': 'sync' },
      },
    ]);
  }
  containerNetworks() {
    return Promise.resolve(this.stored);
  }
  connect(networkId: string, id: string) {
    this.calls.push(`connect ${networkId} ${id.slice(0, 4)}`);
    const error = this.connectErrors.shift();
    return error === undefined ? Promise.resolve() : Promise.reject(error);
  }
  disconnect(name: string, id: string) {
    this.calls.push(`disconnect ${name} ${id.slice(0, 4)}`);
    return Promise.resolve();
  }
  restart(id: string) {
    this.calls.push(`restart ${id.slice(0, 4)}`);
    return Promise.resolve();
  }
  watchNetworks() {
    return Promise.resolve({ stop() {} });
  }
}

function rebinder(docker: FakeDocker, env: Record<string, string> = {}) {
  const { config } = loadExternalRebinderConfig({
    ANCHORD_FOLLOW_NETWORK: 'app_net',
    ANCHORD_FOLLOW_TARGET: 'sync',
    COMPOSE_PROJECT_NAME: 'me',
    ANCHORD_FOLLOW_EVENT_BACKOFF: '0',
    ...env,
  });
  return new ExternalRebinder(config, {
    docker,
    logger: pino({ level: 'silent' }),
    settle: { pollMs: 1, quietMs: 2, maxWaitMs: 20, connectAttempts: 3 },
  });
}

const event = (action: string, name = 'app_net'): NetworkEvent => ({
  action,
  networkId: 'net-2',
  name,
  containerId: 't1',
});

test('external-rebinder: the follower found by its Compose service, else by name', () => {
  const all: FollowContainer[] = [
    { id: 'a', names: ['/sync'], labels: {} },
    {
      id: 'b',
      names: ['/me-sync-1'],
      labels: { 'com.docker.compose.project': 'me', 'com.docker.compose.service': 'sync' },
    },
  ];
  assert.equal(resolveFollower(all, 'sync', 'me'), 'b');
  assert.equal(resolveFollower(all, '/sync', ''), 'a');
  assert.equal(resolveFollower(all, 'nope', 'me'), '');
  assert.ok(idMatch('abcdef012345', 'abcdef0123456789'));
  assert.ok(!idMatch('abc', 'abcdef'));
  assert.ok(isAlreadyConnected(new Error('endpoint with name x already exists in network y')));
  assert.ok(isAlreadyNotAttached(new Error('container x is not connected to network y')));
  assert.ok(isAddressInUse(new Error('Address already in use')));
});

test('external-rebinder: a disconnect leaving the follower alone parks it; with others it stays', async () => {
  const docker = new FakeDocker();
  const r = rebinder(docker);
  await r.handle(event('disconnect'));
  assert.deepEqual(docker.calls, [], 'the other stack still has nginx');
  assert.equal(r.isParked(), false);
  docker.network = { id: 'net-1', members: { [FOLLOWER]: 'follower' } };
  await r.handle(event('disconnect'));
  assert.deepEqual(docker.calls, ['disconnect app_net ffff']);
  assert.equal(r.isParked(), true);
  await r.handle(event('disconnect'));
  assert.equal(docker.calls.length, 1, 'already parked');
});

test('external-rebinder: events of other networks are ignored; destroy parks', async () => {
  const docker = new FakeDocker();
  const r = rebinder(docker);
  await r.handle(event('create', 'other'));
  assert.deepEqual(docker.calls, []);
  await r.handle(event('destroy'));
  assert.equal(r.isParked(), true);
});

test('external-rebinder: create settles then reattaches by the new ID; connect while parked does too', async () => {
  const docker = new FakeDocker();
  const r = rebinder(docker, { ANCHORD_FOLLOW_RESTART: 'true' });
  docker.network = { id: 'net-2', members: { t1: 'nginx' } };
  await r.handle(event('create'));
  assert.deepEqual(docker.calls, ['disconnect app_net ffff', 'connect net-2 ffff', 'restart ffff']);
  await r.handle(event('destroy'));
  docker.calls = [];
  await r.handle(event('connect'));
  assert.deepEqual(docker.calls, ['disconnect app_net ffff', 'connect net-2 ffff', 'restart ffff']);
  assert.equal(r.isParked(), false);
  docker.calls = [];
  await r.handle(event('connect'));
  assert.deepEqual(docker.calls, [], 'not parked: a connect is only observed');
});

test('external-rebinder: address-in-use is retried up to the attempts; another error is not', async () => {
  const docker = new FakeDocker();
  const r = rebinder(docker);
  docker.connectErrors = [new Error('Address already in use'), new Error('Address already in use')];
  await r.reattach('test');
  assert.equal(docker.calls.filter((c) => c.startsWith('connect')).length, 3);
  docker.calls = [];
  docker.connectErrors = [new Error('no such network')];
  await r.reattach('test');
  assert.equal(docker.calls.filter((c) => c.startsWith('connect')).length, 1);
});

test('external-rebinder: start-up reattaches a follower holding another network ID, not one on the live ID', async () => {
  const docker = new FakeDocker();
  await rebinder(docker).bootstrapRecheck();
  assert.deepEqual(docker.calls, []);
  docker.stored = { app_net: 'net-0' };
  await rebinder(docker).bootstrapRecheck();
  assert.deepEqual(docker.calls, ['disconnect app_net ffff', 'connect net-1 ffff']);
});

test('external-rebinder config: anchord LoadRebinder rules', () => {
  const message = (env: Record<string, string>): string => {
    try {
      loadExternalRebinderConfig(env);
      return '';
    } catch (error) {
      assert.ok(error instanceof LabelwiseError);
      return error.message;
    }
  };
  assert.equal(message({}), 'ANCHORD_FOLLOW_NETWORK must be set in external-rebinder mode');
  assert.equal(
    message({ ANCHORD_FOLLOW_NETWORK: 'n' }),
    'ANCHORD_FOLLOW_TARGET must be set in external-rebinder mode',
  );
  const base = { ANCHORD_FOLLOW_NETWORK: 'n', ANCHORD_FOLLOW_TARGET: 't' };
  assert.match(
    message({ ...base, ANCHORD_FOLLOW_RESTART: 'maybe' }),
    /^invalid ANCHORD_FOLLOW_RESTART="maybe"/,
  );
  assert.equal(
    message({ ...base, ANCHORD_FOLLOW_EVENT_BACKOFF: '-1s' }),
    'ANCHORD_FOLLOW_EVENT_BACKOFF must be non-negative',
  );
  const { config } = loadExternalRebinderConfig({ ...base, ANCHORD_FOLLOW_RESTART: 'T' });
  assert.deepEqual([config.restart, config.eventBackoffMs, config.selfProject], [true, 2000, '']);
});

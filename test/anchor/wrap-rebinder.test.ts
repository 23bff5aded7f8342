// The wrap-rebinder's loop and its Docker adapter, without Docker: a fake port records calls, and
// the adapter reads a hand-fed event stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { LabelwiseError } from '../../src/base/errors.js';
import { DockerWrapRebinder } from '../../src/anchor/io/wrap-rebinder-docker.js';
import { loadWrapRebinderConfig } from '../../src/anchor/rebinder/rebinder-config.js';
import { WrapRebinder } from '../../src/anchor/rebinder/wrap-rebinder.js';
import type { WrapRebinderPort } from '../../src/anchor/rebinder/wrap-rebinder.js';
import type { StartEvent, WrapContainer } from '../../src/anchor/rebinder/wrap-target-pool.js';

function logLines(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug', base: null },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}

const owner: WrapContainer = { id: 'owner-1', names: ['/nginx'], networkMode: '', labels: {} };
const anchor: WrapContainer = {
  id: 'anchor-1',
  names: ['/nginx-anchor'],
  networkMode: 'container:owner-1',
  labels: { 'com.docker.compose.project': 'ws' },
};

/** A port whose event stream the test drives: `emit` a start, `fail` the stream. */
function fakePort(containers: WrapContainer[]) {
  const recreated: string[] = [];
  let subscriptions = 0;
  let onStart: ((e: StartEvent) => void) | undefined;
  let onEnd: ((e: unknown) => void) | undefined;
  let subscribed!: () => void;
  let nextSubscription = new Promise<void>((resolve) => (subscribed = resolve));
  const port: WrapRebinderPort = {
    list: () => Promise.resolve(containers),
    recreate: (id, mode) => {
      recreated.push(`${id}->${mode}`);
      return Promise.resolve(`${id}-new`);
    },
    watchStarts: (start, end) => {
      subscriptions++;
      onStart = start;
      onEnd = end;
      const done = subscribed;
      nextSubscription = new Promise<void>((resolve) => (subscribed = resolve));
      done();
      return Promise.resolve({ stop() {} });
    },
  };
  return {
    port,
    recreated,
    subscriptions: () => subscriptions,
    emit: (e: StartEvent) => onStart?.(e),
    fail: (e: unknown) => onEnd?.(e),
    subscribed: () => nextSubscription,
  };
}

const env = { COMPOSE_PROJECT_NAME: 'ws', ANCHORD_METRICS_ADDR: '' };

test('wrap-rebinder: starts, pools its anchor, follows a start event, stops with 0', async () => {
  const fake = fakePort([owner, anchor]);
  const { logger, lines } = logLines();
  const { config } = loadWrapRebinderConfig(env);
  const rebinder = new WrapRebinder(config, { docker: fake.port, logger, selfId: 'self' });
  await rebinder.start();
  assert.equal(lines[0]?.msg, 'wrap-rebinder starting');
  assert.equal(lines[0]?.project, 'ws');
  assert.equal(lines[0]?.poll_interval, '30s');
  assert.deepEqual(Object.fromEntries(rebinder.targets()), { nginx: ['anchor-1'] });
  assert.deepEqual(fake.recreated, [], 'no drift at start');

  fake.emit({ containerName: 'nginx', project: 'other' });
  await rebinder.settled();
  assert.deepEqual(fake.recreated, ['anchor-1->container:nginx']);
  assert.ok(lines.some((l) => l.msg === 'wrap-rebinder: anchor recreated against live target'));

  await rebinder.stop();
  assert.equal(await rebinder.done, 0);
});

test('wrap-rebinder: a failed event stream is logged and opened again (anchord Run)', async () => {
  const fake = fakePort([]);
  const { logger, lines } = logLines();
  const { config } = loadWrapRebinderConfig(env);
  const rebinder = new WrapRebinder(config, {
    docker: fake.port,
    logger,
    selfId: 'self',
    retryDelayMs: 0,
  });
  await rebinder.start();
  assert.equal(fake.subscriptions(), 1);
  assert.ok(
    lines.some((l) => l.msg === 'wrap-rebinder: target pool is empty; nothing to track yet'),
  );
  const again = fake.subscribed();
  fake.fail(new Error('daemon died'));
  await again;
  assert.equal(fake.subscriptions(), 2);
  const warn = lines.find((l) => l.msg === 'wrap-rebinder event stream error, retrying');
  assert.equal(warn?.err, 'daemon died');
  await rebinder.stop();
});

test('wrap-rebinder: an orphan is warned about and not recreated', async () => {
  const orphan = { ...anchor, networkMode: 'container:gone-owner-id' };
  const fake = fakePort([orphan]);
  const { logger, lines } = logLines();
  const { config } = loadWrapRebinderConfig(env);
  const rebinder = new WrapRebinder(config, { docker: fake.port, logger, selfId: 'self' });
  await rebinder.start();
  const warn = lines.find((l) => String(l.msg).includes('manual recreate required'));
  assert.deepEqual([warn?.anchor, warn?.stored_ref], ['anchor-1', 'gone-owner-id']);
  assert.deepEqual(fake.recreated, []);
  await rebinder.stop();
});

function eventsDocker(stream: PassThrough): DockerWrapRebinder {
  const events = { getEvents: () => Promise.resolve(stream) } as unknown as Docker;
  return new DockerWrapRebinder({} as Docker, events);
}

test('wrap-rebinder adapter: only start events, split across chunks, reach the loop (TestConsume_IgnoresNonStartActions)', async () => {
  const stream = new PassThrough();
  const seen: StartEvent[] = [];
  await eventsDocker(stream).watchStarts(
    (e) => seen.push(e),
    () => {},
  );
  const start = JSON.stringify({
    Type: 'container',
    Action: 'start',
    Actor: { ID: 'x', Attributes: { name: 'dovecot-mailcow', 'com.docker.compose.project': 'mc' } },
  });
  stream.write(`${JSON.stringify({ Action: 'destroy', Actor: { Attributes: { name: 'a' } } })}\n`);
  stream.write(`${JSON.stringify({ Action: 'die', Actor: { Attributes: { name: 'a' } } })}\n`);
  stream.write(start.slice(0, 20));
  stream.write(`${start.slice(20)}\nnot json\n`);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen, [{ containerName: 'dovecot-mailcow', project: 'mc' }]);
});

test('wrap-rebinder adapter: the stream ending or failing ends the watch once (TestConsume_ReturnsOn*)', async () => {
  for (const [how, want] of [
    ['end', 'event message channel closed'],
    ['error', 'daemon died'],
  ] as const) {
    const stream = new PassThrough();
    const ends: string[] = [];
    await eventsDocker(stream).watchStarts(
      () => {},
      (e) => ends.push((e as Error).message),
    );
    if (how === 'end') stream.end();
    else stream.destroy(new Error('daemon died'));
    stream.resume();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(ends, [want], how);
  }
});

test('wrap-rebinder config: anchord LoadWrapRebinder rules', () => {
  const missing = (): unknown => loadWrapRebinderConfig({});
  assert.throws(missing, (e: unknown) => {
    assert.ok(e instanceof LabelwiseError);
    assert.equal(e.code, 'ANCHOR_INVALID_CONFIG');
    assert.match(e.message, /^COMPOSE_PROJECT_NAME must be set in wrap-rebinder mode/);
    return true;
  });
  const { config } = loadWrapRebinderConfig({
    COMPOSE_PROJECT_NAME: ' ws ',
    ANCHORD_WRAP_POLL_INTERVAL: '5',
    ANCHORD_WRAP_RESTART_TIMEOUT: '1m30s',
  });
  assert.deepEqual(
    [config.selfProject, config.pollIntervalMs, config.restartTimeoutMs, config.metrics],
    ['ws', 5000, 90_000, { host: '127.0.0.1', port: 9090 }],
  );
  for (const [name, value, message] of [
    ['ANCHORD_WRAP_POLL_INTERVAL', '0', 'ANCHORD_WRAP_POLL_INTERVAL must be positive'],
    ['ANCHORD_WRAP_POLL_INTERVAL', '-5s', 'ANCHORD_WRAP_POLL_INTERVAL must be positive'],
    ['ANCHORD_WRAP_RESTART_TIMEOUT', '0s', 'ANCHORD_WRAP_RESTART_TIMEOUT must be positive'],
    ['ANCHORD_WRAP_POLL_INTERVAL', 'soon', 'invalid ANCHORD_WRAP_POLL_INTERVAL'],
  ] as const) {
    assert.throws(
      () => loadWrapRebinderConfig({ COMPOSE_PROJECT_NAME: 'ws', [name]: value }),
      (e: unknown) => e instanceof LabelwiseError && e.message.startsWith(message),
      `${name}=${value}`,
    );
  }
});

// anchord's external-rebinder cases (external-rebinder.json names each upstream test), run through
// the ExternalRebinder with a Docker port that records its writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { ExternalRebinder } from '../../../../src/anchor/rebinder/external-rebinder.js';
import type {
  ExternalRebinderPort,
  NetworkEvent,
} from '../../../../src/anchor/rebinder/external-rebinder.js';
import {
  isAlreadyConnected,
  isAlreadyNotAttached,
  resolveFollower,
} from '../../../../src/anchor/rebinder/follow-rules.js';
import type {
  FollowContainer,
  FollowNetwork,
} from '../../../../src/anchor/rebinder/follow-rules.js';
import { loadExternalRebinderConfig } from '../../../../src/anchor/rebinder/rebinder-config.js';

interface Case {
  readonly name: string;
  readonly upstream: { readonly file: string; readonly test: string };
}
interface Scenario extends Case {
  network: FollowNetwork | null;
  containers: FollowContainer[];
  stored: Record<string, string>;
  target: string;
  selfProject: string;
  restart: boolean;
  connectError: string | null;
  disconnectError: string | null;
  step: 'bootstrap' | 'reattach' | NetworkEvent;
  wantCalls: string[];
}
const data = JSON.parse(
  readFileSync(new URL('external-rebinder.json', import.meta.url), 'utf8'),
) as {
  scenarios: Scenario[];
  resolveFollower: (Case & {
    containers: FollowContainer[];
    target: string;
    selfProject: string;
    want: string;
  })[];
  errors: (Case & { kind: string; cases: [string, boolean][] })[];
};

function port(c: Scenario, calls: string[]): ExternalRebinderPort {
  const fail = (text: string | null): Promise<void> =>
    text === null ? Promise.resolve() : Promise.reject(new Error(text));
  return {
    inspectNetwork: (name) =>
      c.network === null
        ? Promise.reject(new Error('daemon unreachable'))
        : Promise.resolve(c.network).then((n) => {
            assert.equal(name, 'mailcow_net');
            return n;
          }),
    list: () => Promise.resolve(c.containers),
    containerNetworks: () => Promise.resolve(c.stored),
    connect: (networkId, id) => {
      calls.push(`connect ${networkId} ${id}`);
      return fail(c.connectError);
    },
    disconnect: (name, id) => {
      calls.push(`disconnect ${name} ${id}`);
      return fail(c.disconnectError);
    },
    restart: (id) => {
      calls.push(`restart ${id}`);
      return Promise.resolve();
    },
    watchNetworks: () => Promise.resolve({ stop() {} }),
  };
}

for (const c of data.scenarios) {
  test(`anchord ${c.upstream.file} ${c.upstream.test}: ${c.name}`, async () => {
    const { config } = loadExternalRebinderConfig({
      ANCHORD_FOLLOW_NETWORK: 'mailcow_net',
      ANCHORD_FOLLOW_TARGET: c.target,
      COMPOSE_PROJECT_NAME: c.selfProject,
      ANCHORD_FOLLOW_RESTART: String(c.restart),
      ANCHORD_FOLLOW_EVENT_BACKOFF: '0',
    });
    const calls: string[] = [];
    // anchord's test seam: settle timings of milliseconds, three connect attempts.
    const rebinder = new ExternalRebinder(config, {
      docker: port(c, calls),
      logger: pino({ level: 'silent' }),
      settle: { pollMs: 1, quietMs: 1, maxWaitMs: 20, connectAttempts: 3 },
    });
    if (c.step === 'bootstrap') await rebinder.bootstrapRecheck();
    else if (c.step === 'reattach') await rebinder.reattach('test');
    else await rebinder.handle(c.step);
    assert.deepEqual(calls, c.wantCalls);
  });
}

for (const c of data.resolveFollower) {
  test(`anchord ${c.upstream.file} ${c.upstream.test}: ${c.name}`, () =>
    assert.equal(resolveFollower(c.containers, c.target, c.selfProject), c.want));
}

for (const c of data.errors) {
  test(`anchord ${c.upstream.file} ${c.upstream.test}: ${c.name}`, () => {
    const classify = c.kind === 'alreadyConnected' ? isAlreadyConnected : isAlreadyNotAttached;
    for (const [text, want] of c.cases) assert.equal(classify(new Error(text)), want, text);
  });
}

test('every external-rebinder case names its upstream test', () => {
  const all: Case[] = [...data.scenarios, ...data.resolveFollower, ...data.errors];
  assert.equal(all.length, 21);
  for (const c of all) assert.match(c.upstream.test, /^Test/);
});

// anchord's wrap-rebinder loop cases (wrap-rebinder.json `loop`), run through the WrapRebinder
// class with a Docker port that records what it is asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { WrapRebinder } from '../../../../src/anchor/rebinder/wrap-rebinder.js';
import type { WrapRebinderPort } from '../../../../src/anchor/rebinder/wrap-rebinder.js';
import type { WrapRebinderConfig } from '../../../../src/anchor/rebinder/rebinder-config.js';
import type {
  StartEvent,
  WrapContainer,
} from '../../../../src/anchor/rebinder/wrap-target-pool.js';

type Step =
  | { recreate: { anchorId: string; target: string }; at: number }
  | { start: StartEvent }
  | { recheck: string }
  | { enumerate: true };

interface LoopCase {
  readonly name: string;
  readonly upstream: { readonly file: string; readonly test: string };
  readonly containers: WrapContainer[];
  readonly pool: Record<string, string[]>;
  readonly listError?: boolean;
  readonly steps: Step[];
  readonly wantRecreates: { anchorId: string; networkMode: string }[];
  readonly wantPool?: Record<string, string[]>;
}

const data = JSON.parse(readFileSync(new URL('wrap-rebinder.json', import.meta.url), 'utf8')) as {
  loop: LoopCase[];
};

const config: WrapRebinderConfig = {
  selfProject: 'ws',
  pollIntervalMs: 3_600_000,
  restartTimeoutMs: 1000,
  docker: { kind: 'unix', socketPath: '/nonexistent' },
  logLevel: 'info',
  metrics: undefined,
};

async function runCase(c: LoopCase): Promise<void> {
  const recreates: { anchorId: string; networkMode: string }[] = [];
  const docker: WrapRebinderPort = {
    list: () =>
      c.listError === true
        ? Promise.reject(new Error('daemon down'))
        : Promise.resolve(c.containers),
    recreate: (anchorId, networkMode) => {
      recreates.push({ anchorId, networkMode });
      return Promise.resolve(`new-id-${recreates.length}`);
    },
    watchStarts: () => Promise.resolve({ stop() {} }),
  };
  let clock = 0;
  const rebinder = new WrapRebinder(config, {
    docker,
    logger: pino({ level: 'silent' }),
    selfId: 'self',
    now: () => clock,
  });
  // Seed the pool as an enumeration would have, through the rebinder's own path.
  (rebinder as unknown as { pool: Map<string, string[]> }).pool = new Map(Object.entries(c.pool));
  for (const step of c.steps) {
    if ('recreate' in step) {
      clock = step.at;
      await rebinder.recreateAnchor(step.recreate.anchorId, step.recreate.target, 'test');
    } else if ('start' in step) await rebinder.handleStart(step.start);
    else if ('recheck' in step) await rebinder.enumerateAndRecheck(step.recheck);
    else await rebinder.enumerateAndRecheck('startup');
  }
  assert.deepEqual(recreates, c.wantRecreates);
  if (c.wantPool !== undefined)
    assert.deepEqual(Object.fromEntries(rebinder.targets()), c.wantPool);
}

for (const c of data.loop) {
  test(`anchord ${c.upstream.file} ${c.upstream.test}: ${c.name}`, () => runCase(c));
}

test('every wrap-rebinder loop case names its upstream test', () => {
  assert.equal(data.loop.length, 4);
  for (const c of data.loop) assert.match(c.upstream.test, /^Test/);
});

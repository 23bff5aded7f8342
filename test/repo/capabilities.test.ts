import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { requiredCapabilities, skipOrFail } from '../support/capabilities.js';

function fakeContext(): TestContext & { skipped?: string } {
  const t = {
    skipped: undefined as string | undefined,
    skip(reason?: string) {
      t.skipped = reason;
    },
  };
  return t as unknown as TestContext & { skipped?: string };
}

test('a missing capability skips with its reason where the run does not require it', () => {
  const saved = process.env.LABELWISE_REQUIRE;
  try {
    process.env.LABELWISE_REQUIRE = 'docker';
    const t = fakeContext();
    assert.equal(skipOrFail(t, 'chromium', 'no chromium here'), true);
    assert.equal(t.skipped, 'no chromium here');
    assert.equal(skipOrFail(fakeContext(), 'chromium', undefined), false);
  } finally {
    if (saved === undefined) delete process.env.LABELWISE_REQUIRE;
    else process.env.LABELWISE_REQUIRE = saved;
  }
});

test('a missing capability the run requires fails instead of skipping', () => {
  const saved = process.env.LABELWISE_REQUIRE;
  try {
    process.env.LABELWISE_REQUIRE = 'docker, nft';
    assert.deepEqual([...requiredCapabilities()], ['docker', 'nft']);
    const t = fakeContext();
    assert.throws(() => skipOrFail(t, 'nft', 'nft missing'), /nft is required in this run/);
    assert.equal(t.skipped, undefined);
  } finally {
    if (saved === undefined) delete process.env.LABELWISE_REQUIRE;
    else process.env.LABELWISE_REQUIRE = saved;
  }
});

// The Indexed Job manifest and the CI matrix workflow docs/fleet.md ships, read from the page:
// the Job is a valid batch/v1 Job, and both run as their engines would run them (one process per
// index or matrix value, the index in JOB_COMPLETION_INDEX) give shards whose merge is one run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { parseYamlDocument } from '../../src/base/yaml.js';
import { tempTree } from './cli-helpers.js';
import { ROOT, bin, shardedFleet } from './shard-fixture.js';

const sh = promisify(execFile);
const DOC = readFileSync(join(ROOT, 'docs', 'fleet.md'), 'utf8');

/** The first fenced YAML block after `heading`, parsed. */
function yamlAfter(heading: string): Record<string, unknown> {
  const start = DOC.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `docs/fleet.md has the section ${heading}`);
  const block = /```yaml\n([\s\S]*?)```/.exec(DOC.slice(start));
  assert.ok(block !== null, `${heading} holds a yaml block`);
  const { document, diagnostics } = parseYamlDocument(block[1] as string, { file: heading });
  assert.deepEqual(diagnostics, []);
  return document?.value as Record<string, unknown>;
}

/** A directory with a `labelwise` on it that runs this checkout's bin, as the image's would. */
function labelwiseOnPath(): string {
  const dir = tempTree({});
  const file = join(dir, 'labelwise');
  writeFileSync(
    file,
    `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'bin', 'labelwise.js')}" "$@"\n`,
  );
  chmodSync(file, 0o755);
  return dir;
}

async function shell(script: string, cwd: string, env: Record<string, string>): Promise<number> {
  try {
    await sh('sh', ['-c', script], { cwd, env: { ...process.env, ...env } });
    return 0;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'number') throw error;
    return code;
  }
}

interface Container {
  command?: string[];
  args?: string[];
  volumeMounts?: { name: string; mountPath: string }[];
}

test('the Indexed Job in docs/fleet.md is a valid batch/v1 Job that shards by its completions', () => {
  const manifest = yamlAfter('### On a Kubernetes Indexed Job');
  new Job(manifest as never).validate();
  const spec = manifest.spec as {
    completionMode: string;
    completions: number;
    template: { spec: { containers: Container[]; restartPolicy: string } };
  };
  assert.equal(spec.completionMode, 'Indexed');
  assert.equal(spec.template.spec.restartPolicy, 'Never');
  const script = spec.template.spec.containers[0]?.args?.join(' ') ?? '';
  assert.match(script, new RegExp(`--shards ${spec.completions} `));
  // A broken Job is refused by the same validation: the check is not vacuous.
  assert.throws(() =>
    new Job({ ...manifest, spec: { ...spec, completions: 'four' } } as never).validate(),
  );
});

test('the Indexed Job run as the Job runs it: every index, then merge, is one unsharded run', async () => {
  const manifest = yamlAfter('### On a Kubernetes Indexed Job');
  const spec = manifest.spec as {
    completions: number;
    template: { spec: { containers: Container[] } };
  };
  const container = spec.template.spec.containers[0] as Container;
  assert.deepEqual(container.command, ['sh', '-c']);
  // The pod's mounts, as local folders: the checkout holds the fleet, the claim collects shards.
  const repo = shardedFleet(30, 'fleet');
  const shards = tempTree({});
  const mounts: Record<string, string> = { repo, shards };
  let script = (container.args ?? []).join(' ');
  for (const mount of container.volumeMounts ?? [])
    script = script.split(mount.mountPath).join(mounts[mount.name] as string);
  const path = `${labelwiseOnPath()}:${process.env.PATH ?? ''}`;
  const codes = await Promise.all(
    Array.from({ length: spec.completions }, (_, index) =>
      shell(script, ROOT, { PATH: path, JOB_COMPLETION_INDEX: String(index) }),
    ),
  );
  assert.deepEqual(
    codes,
    codes.map(() => 0),
    'a fleet with errors still completes every pod',
  );
  const files = readdirSync(shards).sort();
  assert.equal(files.length, spec.completions);
  const whole = await bin(['fleet', 'validate', join(repo, 'fleet'), '--json']);
  const merged = await bin(['fleet', 'merge', ...files.map((f) => join(shards, f)), '--json']);
  assert.equal(merged.err, '');
  assert.equal(merged.out, whole.out);
  assert.equal(merged.code, 1);
});

interface Step {
  run?: string;
  uses?: string;
}

test('the CI matrix in docs/fleet.md run as the matrix runs it merges into one unsharded run', async () => {
  const workflow = yamlAfter('### In a CI matrix (GitHub Actions)');
  const jobs = workflow.jobs as Record<
    string,
    { steps: Step[]; needs?: string; strategy?: { matrix: { shard: number[] } } }
  >;
  const shard = jobs.shard;
  const merge = jobs.merge;
  assert.ok(shard !== undefined && merge !== undefined);
  assert.equal(merge.needs, 'shard');
  const values = shard.strategy?.matrix.shard ?? [];
  assert.deepEqual(
    values,
    values.map((_, i) => i + 1),
  );
  // The checkout and artifact steps are the runner's; the labelwise steps run here as written.
  const ours = (steps: Step[]): string[] =>
    steps
      .map((s) => s.run)
      .filter((r): r is string => r !== undefined && r.startsWith('labelwise '));
  const work = shardedFleet(30, 'fleet');
  const path = `${labelwiseOnPath()}:${process.env.PATH ?? ''}`;
  for (const value of values)
    for (const run of ours(shard.steps)) {
      assert.match(run, new RegExp(`/${values.length} `));
      const code = await shell(run.split('${{ matrix.shard }}').join(String(value)), work, {
        PATH: path,
      });
      assert.equal(code, 0);
    }
  const [mergeStep] = ours(merge.steps);
  assert.ok(mergeStep !== undefined);
  const whole = await bin(['fleet', 'validate', join(work, 'fleet')]);
  const merged = await shell(`${mergeStep} > merged.txt`, work, { PATH: path });
  assert.equal(merged, whole.code, 'the merge job fails as one run would');
  const text = readFileSync(join(work, 'merged.txt'), 'utf8');
  assert.match(
    text,
    new RegExp(
      `^merged ${values.length} shards of revision [0-9a-f]{8}: resolved 30 hosts, \\d+ errors\\n$`,
      'm',
    ),
  );
  mkdirSync(join(work, 'check'));
  const json = await shell(`${mergeStep} --json > check/merged.json`, work, { PATH: path });
  assert.equal(json, whole.code);
  const unsharded = await bin(['fleet', 'validate', join(work, 'fleet'), '--json']);
  assert.equal(readFileSync(join(work, 'check', 'merged.json'), 'utf8'), unsharded.out);
});

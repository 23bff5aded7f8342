#!/usr/bin/env node
// Time and peak memory of `labelwise diff` across consecutive commits of the real-world corpus:
// each repository is replayed into a temporary git repository and every pair (or every Nth, with
// --every N) diffed by the CLI in a child process under /usr/bin/time. Prints one JSON line per
// repository. Not a test: figures vary with the machine.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const here = import.meta.dirname;
const bin = join(here, '..', '..', '..', 'bin', 'labelwise.js');
const flag = (name) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const every = Number(flag('--every') ?? 1);
// --only a,b measures those corpora alone.
const only = flag('--only')?.split(',');
const git = (cwd, ...args) =>
  execFileSync(
    'git',
    [
      '-c',
      'user.name=corpus',
      '-c',
      'user.email=corpus@example.invalid',
      '-c',
      'commit.gpgsign=false',
      ...args,
    ],
    { cwd, encoding: 'utf8' },
  ).trim();

for (const name of readdirSync(here, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .filter((name) => only === undefined || only.includes(name))
  .sort()) {
  const expected = JSON.parse(readFileSync(join(here, name, 'expected.json'), 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-measure-'));
  try {
    git(dir, 'init', '-q', '-b', 'main');
    const shas = [];
    for (const c of expected.commits) {
      git(dir, 'rm', '-rq', '--cached', '--ignore-unmatch', '.');
      git(dir, 'clean', '-fdxq');
      cpSync(join(here, name, c.folder), dir, { recursive: true });
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '--allow-empty', '-m', c.commit);
      shas.push(git(dir, 'rev-parse', 'HEAD'));
    }
    // The policy part as labelwise.yaml names it (the corpus writes only `parts.policy: X`).
    const config = join(here, name, expected.commits[0].folder, 'labelwise.yaml');
    const part = existsSync(config)
      ? (/^\s+policy: (\S+)$/m.exec(readFileSync(config, 'utf8'))?.[1] ?? 'policy')
      : 'policy';
    const ms = [];
    const kb = [];
    const exits = {};
    const failures = [];
    let falseFlips = 0;
    // Outbound flow flips (inside policy.changes), false or not: how much of it the corpus has.
    let outboundFlips = 0;
    for (let i = 1; i < shas.length; i += every) {
      const r = spawnSync(
        '/usr/bin/time',
        [
          '-f',
          '%e %M',
          process.execPath,
          bin,
          'diff',
          '.',
          '--from',
          shas[i - 1],
          '--to',
          shas[i],
          '--json',
        ],
        { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26 },
      );
      const [secs, maxKb] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
      ms.push(secs * 1000);
      kb.push(maxKb);
      exits[r.status] = (exits[r.status] ?? 0) + 1;
      let diff;
      try {
        diff = JSON.parse(r.stdout);
      } catch {
        diff = undefined;
      }
      // Exit 1 is a change that introduces errors: which, and where.
      if (r.status !== 0 && r.status !== 2)
        failures.push(
          `${expected.commits[i].folder}: exit ${r.status}: ${
            (diff?.introduced ?? [])
              .filter((d) => d.severity === 'error')
              .map((d) => `${d.code} ${d.file}:${d.line}`)
              .join(', ') || r.stdout.slice(0, 300)
          }`,
        );
      // A flip on a policy folder no byte of which changed is false by construction.
      const policyChanged =
        spawnSync('git', ['diff', '--quiet', shas[i - 1], shas[i], '--', part], {
          cwd: dir,
        }).status !== 0;
      if (!policyChanged) falseFlips += diff?.policy?.changes?.length ?? 0;
      outboundFlips += (diff?.policy?.changes ?? []).filter(
        (c) => c.causeKind === 'outbound',
      ).length;
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(
      JSON.stringify({
        name,
        commits: shas.length,
        diffs: ms.length,
        exits,
        falseFlips,
        outboundFlips,
        ...(failures.length > 0 ? { failures } : {}),
        medianMs: Math.round(median(ms)),
        maxMs: Math.round(Math.max(...ms)),
        peakRssMiB: Math.round(Math.max(...kb) / 1024),
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

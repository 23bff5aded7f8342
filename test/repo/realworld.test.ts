/**
 * The real-world corpus (test/repo/realworld/, SOURCES.md): files of public repositories at
 * 21 consecutive commits each. Every commit is built, every consecutive pair compared as
 * `labelwise diff` compares them, and a sample of pairs diffed through git. The expectations
 * come from the real system, recorded in each expected.json by extract.mjs: what
 * `docker-compose config` makes of every Compose project (services and labels, or its refusal).
 *
 * - labelwise reads the same services and labels as docker-compose;
 * - a project docker-compose accepts gets no Compose loading error (a false error on a pull
 *   request is a defect);
 * - between two commits that docker-compose reads the same, no diagnostic is introduced or
 *   resolved;
 * - a policy object is a duplicate only where the files applied together define it twice;
 * - no build or diff fails with an internal error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { RepoReader } from '../../src/base/index.js';
import { loadComposeProject } from '../../src/anchor/index.js';
import {
  DEFAULT_COMPOSE_FILES,
  DEFAULT_OVERRIDE_FILES,
} from '../../src/anchor/io/compose-files.js';
import { compareBuilds, runBuild } from '../../src/repo/index.js';
import type { BuildRun, RepoDiff } from '../../src/repo/index.js';
import { skipWithout } from '../support/capabilities.js';
import { withTempDir } from '../support/temp.js';
import { git, initRepo, labelwise } from './support/git-repo.js';

const CORPUS = join(import.meta.dirname, 'realworld');

type Facts = { services: Record<string, Record<string, string>> } | { error: string };

interface Expected {
  readonly repository: string;
  readonly commits: readonly {
    readonly folder: string;
    readonly commit: string;
    readonly compose?: Readonly<Record<string, Facts>>;
    /** The objects the applied policy set defines twice (`group/Kind ns/name`). */
    readonly policy?: { readonly twice: readonly string[] };
  }[];
}

const repositories = readdirSync(CORPUS, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(CORPUS, d.name, 'expected.json')))
  .map((d) => d.name)
  .sort();

/** The files docker-compose read for an expected.json key: `folder` or `folder/file`. */
function filesOf(key: string, tree: string): string[] {
  const names = readdirSync(join(tree, key), { withFileTypes: true });
  if (names.length > 0 && names.every((n) => n.isFile() || n.isDirectory())) {
    const present = new Set(names.filter((n) => n.isFile()).map((n) => n.name));
    const base = DEFAULT_COMPOSE_FILES.find((n) => present.has(n));
    const override = DEFAULT_OVERRIDE_FILES.find((n) => present.has(n));
    if (base !== undefined)
      return [base, ...(override !== undefined ? [override] : [])].map((n) => posix.join(key, n));
  }
  return [key];
}

function defaultFiles(path: string): number {
  const present = new Set(readdirSync(path));
  return DEFAULT_COMPOSE_FILES.filter((n) => present.has(n)).length;
}

function isDirectory(path: string): boolean {
  try {
    return readdirSync(path) !== undefined;
  } catch {
    return false;
  }
}

/** What labelwise's loader reads of one project: service → labels. */
function labelwiseFacts(tree: string, files: string[]): Record<string, Record<string, string>> {
  const reader = RepoReader.open(tree);
  const folder = posix.dirname(files[0] as string);
  const { project } = loadComposeProject({
    files,
    fs: reader,
    directoryName: folder === '.' ? 'repo' : posix.basename(folder),
  });
  const out: Record<string, Record<string, string>> = {};
  for (const s of project.services)
    out[s.name] = Object.fromEntries([...s.labels].map(([k, v]) => [k, v.value]));
  for (const name of project.disabled) out[name] = out[name] ?? {};
  return out;
}

const LOADING = /^ANCHOR_(COMPOSE_|INVALID_PROJECT_NAME)/;
const LABEL_CODES = /^ANCHOR_(INVALID_EXPOSE|UNCLAIMED_BACKEND|PORT_CONFLICT|SCOPE_OVERLAP)/;

for (const name of repositories)
  test(`real-world corpus: ${name}`, async (t) => {
    const expected = JSON.parse(
      readFileSync(join(CORPUS, name, 'expected.json'), 'utf8'),
    ) as Expected;
    const builds: (BuildRun | undefined)[] = [];
    for (const commit of expected.commits) {
      const tree = join(CORPUS, name, commit.folder);
      /** Files docker-compose 1.x read as the legacy format, which labelwise must warn about. */
      const legacy: string[] = [];
      for (const [key, facts] of Object.entries(commit.compose ?? {})) {
        if (!('services' in facts)) continue;
        const folder = isDirectory(join(tree, key));
        // docker-compose 1.x, which recorded the facts, prefers docker-compose.y*ml over
        // compose.y*ml; labelwise reads as Compose v2 does (docs/review.md). Where a folder holds
        // both, the two read different files and the facts say nothing about labelwise.
        if (folder && defaultFiles(join(tree, key)) > 1) continue;
        const files = folder ? filesOf(key, tree) : [key];
        // The legacy format (services at the top, no `services:`) only docker-compose 1.x reads;
        // Compose v2, which labelwise follows, refuses it.
        if (!files.some((f) => /^services:/m.test(readFileSync(join(tree, f), 'utf8')))) {
          legacy.push(...files);
          continue;
        }
        // Service names and labels, as docker-compose config printed them (labels by key; the
        // values docker-compose interpolated with an empty environment).
        const mine = labelwiseFacts(tree, files);
        assert.deepEqual(
          Object.keys(mine).sort(),
          Object.keys(facts.services).sort(),
          `${commit.folder} ${key}: services`,
        );
        for (const [service, labels] of Object.entries(facts.services))
          assert.deepEqual(
            Object.keys(mine[service] ?? {}).sort(),
            Object.keys(labels).sort(),
            `${commit.folder} ${key} ${service}: label keys`,
          );
      }
      let build: BuildRun | undefined;
      try {
        build = await runBuild({ repo: tree, name, rootName: name });
      } catch (error) {
        if (!(error instanceof Error && 'code' in error && error.code === 'BUILD_NOTHING_FOUND'))
          throw error;
      }
      builds.push(build);
      const accepted = Object.entries(commit.compose ?? {})
        .filter(([, f]) => 'services' in f)
        .map(([k]) => k);
      const falseErrors = (build?.report.diagnostics ?? []).filter(
        (d) =>
          d.severity === 'error' &&
          LOADING.test(d.code) &&
          accepted.some((k) => d.file === k || d.file?.startsWith(`${k}/`) === true),
      );
      assert.deepEqual(
        falseErrors,
        [],
        `${commit.folder}: errors on projects docker-compose accepts`,
      );
      const warned = new Set(
        (build?.report.diagnostics ?? [])
          .filter((d) => d.code === 'ANCHOR_COMPOSE_LEGACY_FORMAT')
          .map((d) => d.file),
      );
      assert.deepEqual(
        legacy.filter((f) => !warned.has(f)),
        [],
        `${commit.folder}: legacy-format files read with no warning`,
      );
      if (commit.policy !== undefined) {
        // A duplicate is an object the files applied together (labelwise.yaml's policy part,
        // as `kubectl apply -R -f` applies it) really define twice; alternatives the
        // repository keeps beside them are not applied with them.
        // Recorded as `group/Kind ns/name`; findings name `Kind ns/name`.
        const twice = new Set(commit.policy.twice.map((id) => id.replace(/^[^/]*\//, '')));
        const invented = (build?.report.diagnostics ?? []).filter(
          (d) => d.code === 'POLICY_DUPLICATE_OBJECT' && !twice.has(d.object ?? ''),
        );
        assert.deepEqual(invented, [], `${commit.folder}: duplicates no applied set holds`);
      }
    }
    // Every consecutive pair, compared as diff compares them.
    let flagged = 0;
    for (let i = 1; i < expected.commits.length; i++) {
      const before = expected.commits[i - 1];
      const after = expected.commits[i];
      const diff = compareBuilds(
        { revision: before?.commit ?? '', build: builds[i - 1] },
        { revision: after?.commit ?? '', build: builds[i] },
      );
      if (
        before?.compose !== undefined &&
        JSON.stringify(before.compose) === JSON.stringify(after?.compose)
      ) {
        // Only findings that services and labels decide: a variable warning follows text
        // docker-compose's services and labels do not show.
        const labelled = (list: RepoDiff['introduced']): string[] =>
          list.filter((d) => LABEL_CODES.test(d.code)).map((d) => d.code);
        assert.deepEqual(
          labelled(diff.introduced),
          [],
          `${after?.folder}: introduced with no change Compose sees`,
        );
        assert.deepEqual(
          labelled(diff.resolved),
          [],
          `${after?.folder}: resolved with no change Compose sees`,
        );
      }
      if (diff.changed) flagged++;
    }
    t.diagnostic(
      `${expected.commits.length} commits, ${expected.commits.length - 1} pairs compared, ${flagged} with changes`,
    );
    if (skipWithout(t, 'git')) return;
    // The first, a middle and the last pair through git, as a reviewer runs it.
    await withTempDir('realworld', async (parent) => {
      // Named as the corpus is, so an unnamed project is named alike on both paths.
      const dir = join(parent, name);
      mkdirSync(dir);
      initRepo(dir);
      const shas: string[] = [];
      for (const commit of expected.commits) {
        for (const entry of readdirSync(dir))
          if (entry !== '.git') git(dir, 'rm', '-rq', '--cached', '--ignore-unmatch', entry);
        git(dir, 'clean', '-fdxq');
        cpSync(join(CORPUS, name, commit.folder), dir, { recursive: true });
        git(dir, 'add', '-A');
        git(dir, 'commit', '-q', '--allow-empty', '-m', commit.commit);
        shas.push(git(dir, 'rev-parse', 'HEAD'));
      }
      const n = shas.length;
      for (const i of [...new Set([1, Math.floor(n / 2), n - 1])].filter((i) => i >= 1)) {
        const result = await labelwise(
          dir,
          'diff',
          '.',
          '--from',
          shas[i - 1] as string,
          '--to',
          shas[i] as string,
          '--json',
        );
        assert.ok(
          [0, 1, 2].includes(result.code),
          `${expected.commits[i]?.folder}: exit ${result.code}: ${result.err}`,
        );
        const viaGit = JSON.parse(result.out) as RepoDiff;
        const direct = compareBuilds(
          { revision: '', build: builds[i - 1] },
          { revision: '', build: builds[i] },
        );
        assert.deepEqual(
          viaGit.introduced,
          direct.introduced,
          'git snapshots read what the tree holds',
        );
        assert.deepEqual(viaGit.policy.changes, direct.policy.changes);
      }
    });
  });

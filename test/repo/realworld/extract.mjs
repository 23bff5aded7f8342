#!/usr/bin/env node
// Rebuilds the real-world corpus: for each repository in corpus.json, the files it names at its
// last consecutive commits that touched them (test/repo/realworld/<name>/<NN>-<commit>/), and
// what `docker-compose config` (the real Compose) makes of every Compose project there
// (expected.json). Needs the repositories as git directories: node extract.mjs MIRRORS_DIR.
// The test only reads what this writes.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync, mkdtempSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { tmpdir } from 'node:os';
import { parse } from 'yaml';
import { createHash } from 'node:crypto';

const here = import.meta.dirname;
const mirrors = process.argv[2];
const corpus = JSON.parse(readFileSync(join(here, 'corpus.json'), 'utf8'));
const COMPOSE = /^(docker-)?compose([.-][A-Za-z0-9_.-]+)?\.ya?ml$/;
const DEFAULTS = ['compose.yaml', 'compose.yml', 'docker-compose.yml', 'docker-compose.yaml'];
const OVERRIDES = [
  'compose.override.yml',
  'compose.override.yaml',
  'docker-compose.override.yml',
  'docker-compose.override.yaml',
];

const git = (dir, ...args) =>
  execFileSync('git', ['--git-dir', dir, ...args], { maxBuffer: 1 << 28 });

function target(entry, path) {
  for (const [from, to] of Object.entries(entry.mount)) {
    if (path === from) return to === '' ? posix.basename(path) : `${to}/${posix.basename(path)}`;
    if (from === '' || path.startsWith(`${from}/`)) {
      const rest = from === '' ? path : path.slice(from.length + 1);
      return to === '' ? rest : `${to}/${rest}`;
    }
  }
  return undefined;
}

/**
 * Build contexts and env_file files a Compose file names but the corpus does not hold (they are
 * not Compose files): docker-compose refuses a missing one, so an empty one stands in for it.
 * Neither decides a service's labels.
 */
function standIns(dir, folder, text) {
  let doc;
  try {
    doc = parse(text);
  } catch {
    return;
  }
  for (const svc of Object.values(doc?.services ?? {})) {
    if (svc === null || typeof svc !== 'object') continue;
    const context = typeof svc.build === 'string' ? svc.build : svc.build?.context;
    if (typeof context === 'string' && !context.includes('$') && !/^[a-z]+:\/\//.test(context))
      mkdirSync(join(dir, folder, context), { recursive: true });
    const envFiles = [svc.env_file ?? []].flat().map((e) => (typeof e === 'string' ? e : e?.path));
    for (const f of envFiles)
      if (typeof f === 'string' && !f.includes('$') && !existsSync(join(dir, folder, f))) {
        mkdirSync(dirname(join(dir, folder, f)), { recursive: true });
        writeFileSync(join(dir, folder, f), '');
      }
  }
}

const cache = new Map();

/** docker-compose config in `folder` of `dir` with `args`: services and label keys, or its refusal. */
function runCompose(dir, folder, args) {
  const r = spawnSync('docker-compose', [...args, 'config'], {
    cwd: join(dir, folder),
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: dir },
  });
  if (r.status !== 0)
    return { error: (r.stderr.trim().split('\n').pop() ?? '').split(dir).join('.').slice(0, 300) };
  const config = parse(r.stdout) ?? {};
  const services = {};
  for (const [name, svc] of Object.entries(config.services ?? {})) {
    const labels = svc?.labels ?? {};
    services[name] = Array.isArray(labels)
      ? Object.fromEntries(labels.map((l) => [l.split('=')[0], l.split('=').slice(1).join('=')]))
      : Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, String(v ?? '')]));
  }
  return { services };
}

/** What docker-compose config says of each Compose project of one commit's tree. */
function composeFacts(tree) {
  const folders = new Map();
  for (const path of Object.keys(tree)) {
    if (!COMPOSE.test(posix.basename(path))) continue;
    const folder = posix.dirname(path);
    folders.set(folder, [...(folders.get(folder) ?? []), posix.basename(path)]);
  }
  const out = {};
  for (const [folder, names] of [...folders].sort()) {
    const inFolder = Object.entries(tree)
      .filter(([p]) => posix.dirname(p) === folder)
      .sort();
    const key = createHash('sha256')
      .update(JSON.stringify([folder, inFolder]))
      .digest('hex');
    if (!cache.has(key)) {
      const dir = mkdtempSync(join(tmpdir(), 'labelwise-corpus-'));
      try {
        for (const [path, text] of inFolder) {
          mkdirSync(dirname(join(dir, path)), { recursive: true });
          writeFileSync(join(dir, path), text);
        }
        for (const [path, text] of inFolder)
          if (COMPOSE.test(posix.basename(path))) standIns(dir, folder, text);
        const base = DEFAULTS.find((n) => names.includes(n));
        // With a default file, docker-compose reads it (and the override) with no -f; without
        // one, each file is a stack of its own.
        const runs =
          base !== undefined
            ? [[]]
            : names
                .filter((n) => !OVERRIDES.includes(n))
                .sort()
                .map((n) => ['-f', n]);
        const facts = {};
        for (const args of runs)
          facts[args.length === 0 ? folder : `${folder}/${args[1]}`] = runCompose(
            dir,
            folder,
            args,
          );
        cache.set(key, facts);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    Object.assign(out, cache.get(key));
  }
  return out;
}

for (const entry of corpus.repositories) {
  const gitDir = join(mirrors, entry.mirror, 'repo');
  const head = git(gitDir, 'rev-parse', 'HEAD').toString().trim();
  const log = git(
    gitDir,
    'log',
    '--format=%H',
    '-n',
    String(corpus.commits),
    head,
    '--',
    ...entry.paths,
  )
    .toString()
    .trim()
    .split('\n')
    .filter(Boolean)
    .reverse();
  const outDir = join(here, entry.name);
  rmSync(outDir, { recursive: true, force: true });
  const commits = [];
  log.forEach((commit, i) => {
    const files = git(gitDir, 'ls-tree', '-r', '-z', '--full-tree', commit, '--', ...entry.paths)
      .toString()
      .split('\0')
      .filter(Boolean);
    const tree = {};
    for (const line of files) {
      const [meta, path] = line.split('\t');
      const [mode, type, blob] = meta.split(' ');
      if (type !== 'blob' || mode === '120000') continue;
      const name = posix.basename(path);
      const wanted =
        entry.kind === 'compose' ? COMPOSE.test(name) || name === '.env' : /\.ya?ml$/.test(name);
      if (!wanted && !(entry.extra ?? []).includes(path)) continue;
      const to = target(entry, path);
      if (to === undefined) continue;
      const text = git(gitDir, 'cat-file', 'blob', blob);
      if (text.length > 65536) continue;
      tree[to] = text.toString('utf8');
    }
    const folder = `${String(i).padStart(2, '0')}-${commit.slice(0, 12)}`;
    for (const [path, text] of Object.entries(tree)) {
      mkdirSync(dirname(join(outDir, folder, path)), { recursive: true });
      writeFileSync(join(outDir, folder, path), text);
    }
    if (Object.keys(tree).length === 0) mkdirSync(join(outDir, folder), { recursive: true });
    commits.push({
      folder,
      commit,
      ...(entry.kind === 'compose' || entry.alsoCompose ? { compose: composeFacts(tree) } : {}),
    });
  });
  writeFileSync(
    join(outDir, 'expected.json'),
    `${JSON.stringify({ repository: entry.repository, head, paths: entry.paths, commits }, null, 1)}\n`,
  );
  console.log(`${entry.name}: ${commits.length} commits`);
}

// SOURCES.md: repository, commits and paths of every folder of the corpus.
const rows = [];
for (const entry of corpus.repositories) {
  const file = join(here, entry.name, 'expected.json');
  if (!existsSync(file)) continue;
  const e = JSON.parse(readFileSync(file, 'utf8'));
  const first = e.commits[0]?.commit.slice(0, 12) ?? '';
  const last = e.commits.at(-1)?.commit.slice(0, 12) ?? '';
  rows.push(
    `| \`${entry.name}\` | [${e.repository}](https://github.com/${e.repository}) | ${e.commits.length} (\`${first}\` … \`${last}\`) | ${e.paths.map((p) => `\`${p}\``).join(', ')} | ${Object.entries(
      entry.mount,
    )
      .map(([f, t]) => `\`${f || '/'}\` → \`${t || '/'}\``)
      .join(', ')} |`,
  );
}
writeFileSync(
  join(here, 'SOURCES.md'),
  `# Real-world corpus: sources

Small extracts of public repositories, each at its last consecutive commits that touched the
paths named (the history of those paths, oldest first). Each \`<name>/<NN>-<commit>/\` folder
holds the files as they were at that commit, placed as the "placed at" column says (Compose
stacks under \`compose/\`, Kubernetes and Linkerd manifests under \`policy/\`, so \`labelwise build\`
finds them without a labelwise.yaml). Every commit listed is in \`<name>/expected.json\` with its
full hash, and with what \`docker-compose config\` (docker-compose 1.29.2) printed for each
Compose project there. \`extract.mjs\` rebuilds all of it from git directories of the
repositories; \`corpus.json\` says what it takes. The files keep their projects' licences.

| corpus | repository | commits | paths | placed at |
|---|---|---|---|---|
${rows.join('\n')}
`,
);

#!/usr/bin/env node
// Rebuilds the real-world corpus: for each repository in corpus.json, the files it names at its
// last consecutive commits that touched them (test/repo/realworld/<name>/<NN>-<commit>/), and
// what `docker-compose config` (the real Compose) makes of every Compose project there
// (expected.json). Needs the repositories as git directories: node extract.mjs MIRRORS_DIR
// [--only NAME,…] (only those corpora are rebuilt; SOURCES.md always lists every one).
// The test only reads what this writes.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync, mkdtempSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { tmpdir } from 'node:os';
import { parse, parseAllDocuments } from 'yaml';
import { createHash } from 'node:crypto';

const here = import.meta.dirname;
const mirrors = process.argv[2];
const only = process.argv.includes('--only')
  ? process.argv[process.argv.indexOf('--only') + 1].split(',')
  : undefined;
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
    // A file mounted at a `.yaml` name is renamed (a rendered manifest kept as `.golden`).
    if (path === from && /\.ya?ml$/.test(to)) return to;
    if (path === from) return to === '' ? posix.basename(path) : `${to}/${posix.basename(path)}`;
    if (from === '' || path.startsWith(`${from}/`)) {
      const rest = from === '' ? path : path.slice(from.length + 1);
      return to === '' ? rest : `${to}/${rest}`;
    }
  }
  return undefined;
}

/** A Compose document's services; in the legacy format (no `services:`, no `version:`), its top. */
function servicesOf(doc) {
  if (doc === null || typeof doc !== 'object') return {};
  if (doc.services !== undefined || doc.version !== undefined) return doc.services ?? {};
  return doc;
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
  for (const svc of Object.values(servicesOf(doc))) {
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

/**
 * The env_file files the tree's Compose files name and the tree does not hold, as empty files:
 * written into the extract too, so labelwise reads the input docker-compose read.
 */
function envStandIns(tree) {
  for (const [path, text] of Object.entries(tree)) {
    if (!COMPOSE.test(posix.basename(path))) continue;
    let doc;
    try {
      doc = parse(text);
    } catch {
      continue;
    }
    for (const svc of Object.values(servicesOf(doc))) {
      if (svc === null || typeof svc !== 'object') continue;
      for (const e of [svc.env_file ?? []].flat()) {
        const f = typeof e === 'string' ? e : e?.path;
        if (typeof f !== 'string' || f.includes('$') || f.startsWith('/')) continue;
        const at = posix.normalize(posix.join(posix.dirname(path), f));
        if (!at.startsWith('../') && !(at in tree)) tree[at] = '';
      }
    }
  }
}

/** Repository paths a Compose file names in `include:` and `extends: {file}`. */
function referencedFiles(path, text) {
  let doc;
  try {
    doc = parse(text);
  } catch {
    return [];
  }
  if (doc === null || typeof doc !== 'object') return [];
  const named = [];
  for (const item of Array.isArray(doc.include) ? doc.include : [])
    named.push(...[typeof item === 'string' ? item : (item?.path ?? [])].flat());
  for (const svc of Object.values(doc.services ?? {}))
    if (typeof svc?.extends?.file === 'string') named.push(svc.extends.file);
  return named
    .filter((f) => typeof f === 'string' && !f.includes('$') && !/^[a-z]+:|^\//.test(f))
    .map((f) => posix.normalize(posix.join(posix.dirname(path), f)))
    .filter((f) => !f.startsWith('../'));
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
    // The folder and what lies under it: an include or extends file in a subfolder too.
    const inFolder = Object.entries(tree)
      .filter(([p]) => folder === '.' || p.startsWith(`${folder}/`))
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
          if (posix.dirname(path) === folder && COMPOSE.test(posix.basename(path)))
            standIns(dir, folder, text);
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

/**
 * Objects the applied set defines twice (group, kind, namespace, name), read with a plain YAML
 * parse: what `kubectl apply -R -f` of the policy part (labelwise.yaml's `parts.policy`, else
 * `policy/`) would apply twice. The test holds labelwise's duplicates to these.
 */
function appliedTwice(tree, entry) {
  const part = parse(entry.config ?? '')?.parts?.policy ?? 'policy';
  const namespace = parse(entry.config ?? '')?.policy?.namespace ?? 'default';
  const seen = new Map();
  for (const [path, text] of Object.entries(tree).sort()) {
    const inside = path === part || path.startsWith(`${part}/`);
    if (!inside || !/\.ya?ml$/.test(path) || path.split('/').some((s) => s.startsWith('.')))
      continue;
    let docs;
    try {
      docs = parseAllDocuments(text).map((d) => d.toJS());
    } catch {
      continue;
    }
    for (const doc of docs.flatMap((d) => (d?.kind === 'List' ? (d.items ?? []) : [d]))) {
      if (typeof doc?.kind !== 'string' || typeof doc?.metadata?.name !== 'string') continue;
      const group = String(doc.apiVersion ?? '').includes('/') ? doc.apiVersion.split('/')[0] : '';
      const id = `${group}/${doc.kind} ${doc.metadata.namespace ?? namespace}/${doc.metadata.name}`;
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
  }
  return [...seen]
    .filter(([, n]) => n > 1)
    .map(([id]) => id)
    .sort();
}

for (const entry of corpus.repositories) {
  if (only !== undefined && !only.includes(entry.name)) continue;
  const gitDir = join(mirrors, entry.mirror, 'repo');
  // `until`: the newest commit taken, where later ones need files the extract does not hold.
  const head = git(gitDir, 'rev-parse', entry.until ?? 'HEAD')
    .toString()
    .trim();
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
    const blobs = new Map();
    for (const line of files) {
      const [meta, path] = line.split('\t');
      const [mode, type, blob] = meta.split(' ');
      if (type === 'blob' && mode !== '120000') blobs.set(path, blob);
    }
    const take = (path) => {
      const to = target(entry, path);
      if (to === undefined) return undefined;
      const text = git(gitDir, 'cat-file', 'blob', blobs.get(path));
      if (text.length > 65536) return undefined;
      tree[to] = text.toString('utf8');
      return to;
    };
    const taken = [];
    for (const path of blobs.keys()) {
      const name = posix.basename(path);
      const wanted =
        entry.kind === 'compose' ? COMPOSE.test(name) || name === '.env' : /\.ya?ml$/.test(name);
      if (!wanted && !(entry.extra ?? []).includes(path)) continue;
      if (take(path) !== undefined) taken.push(path);
    }
    // The files a Compose file includes or extends from, whatever their names: without them
    // the extract would hold an `include:` the repository does not break.
    if (entry.kind === 'compose')
      for (let k = 0; k < taken.length; k++)
        for (const ref of referencedFiles(taken[k], tree[target(entry, taken[k])]))
          if (blobs.has(ref) && !taken.includes(ref) && take(ref) !== undefined) taken.push(ref);
    if (entry.kind === 'compose') envStandIns(tree);
    const folder = `${String(i).padStart(2, '0')}-${commit.slice(0, 12)}`;
    for (const [path, text] of Object.entries(tree)) {
      mkdirSync(dirname(join(outDir, folder, path)), { recursive: true });
      writeFileSync(join(outDir, folder, path), text);
    }
    if (Object.keys(tree).length === 0) mkdirSync(join(outDir, folder), { recursive: true });
    // The repository's user's labelwise.yaml (corpus.json `config`): which files they apply.
    if (entry.config !== undefined)
      writeFileSync(join(outDir, folder, 'labelwise.yaml'), entry.config);
    commits.push({
      folder,
      commit,
      ...(entry.kind === 'compose' || entry.alsoCompose ? { compose: composeFacts(tree) } : {}),
      ...(entry.kind === 'policy' ? { policy: { twice: appliedTwice(tree, entry) } } : {}),
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
paths named (the history of those paths, oldest first; \`until\` in corpus.json ends it earlier).
Each \`<name>/<NN>-<commit>/\` folder holds the files as they were at that commit, placed as the
"placed at" column says (Compose stacks under \`compose/\` or at the root, Kubernetes and Linkerd
manifests under \`policy/\`, so \`labelwise build\` finds them). Where the repository keeps
alternative manifest sets that are never applied together, the folder holds a \`labelwise.yaml\`
naming the one its user applies (\`parts.policy\`, as \`kubectl apply -f\` names it), or the
alternatives are placed outside \`policy/\` (\`alternatives/\`): booksapp's SQLite
\`booksapp.yml\` and MySQL \`k8s/\` are two corpora of one repository, and guestbook's
\`all-in-one/\` and \`legacy/\` variants are not applied with its files. Every commit listed is
in \`<name>/expected.json\` with its full hash, with what \`docker-compose config\`
(docker-compose 1.29.2) printed for each Compose project there, and, for a policy corpus, the
objects the applied files define twice by a plain YAML read (\`policy.twice\`). \`extract.mjs\`
rebuilds all of it from git directories of the repositories; \`corpus.json\` says what it takes.
The files keep their projects' licences.

| corpus | repository | commits | paths | placed at |
|---|---|---|---|---|
${rows.join('\n')}
`,
);

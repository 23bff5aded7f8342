import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RepoReader } from '../../src/base/index.js';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { readRepoConfig } from '../../src/repo/index.js';
import type { BuildReport } from '../../src/repo/index.js';
import { withTempDir } from '../support/temp.js';

const HOMELAB = join(import.meta.dirname, '..', '..', 'examples', 'homelab');

const withTemp = (fn: (dir: string) => Promise<void>): Promise<void> => withTempDir('config', fn);

async function build(cwd: string, ...args: string[]) {
  const io = memoryIO({ cwd });
  const code = await run(['build', ...args, '--json'], io);
  return { code, report: code <= 1 ? (JSON.parse(io.out) as BuildReport) : undefined, err: io.err };
}

test('--only and --skip pick the parts that are built', () =>
  withTemp(async (dir) => {
    const only = await build(dir, HOMELAB, '--out', join(dir, 'a'), '--only', 'fleet,policy');
    assert.deepEqual(
      only.report?.modules.map((m) => m.module),
      ['fleet', 'policy'],
    );
    const skip = await build(dir, HOMELAB, '--out', join(dir, 'b'), '--skip', 'anchor');
    assert.deepEqual(
      skip.report?.modules.map((m) => m.module),
      ['fleet', 'catalog', 'policy'],
    );
    const bad = await build(dir, HOMELAB, '--out', join(dir, 'c'), '--only', 'fleet,nope');
    assert.equal(bad.code, 1);
  }));

test('labelwise.yaml names where each part lives and what to skip', () =>
  withTemp(async (dir) => {
    const repo = join(dir, 'repo');
    await cp(HOMELAB, repo, { recursive: true });
    await mkdir(join(repo, 'infra'));
    await rename(join(repo, 'fleet'), join(repo, 'infra', 'machines'));
    await rename(join(repo, 'policy'), join(repo, 'infra', 'mesh'));
    await writeFile(
      join(repo, 'labelwise.yaml'),
      'parts:\n  fleet: infra/machines\n  policy: infra/mesh/\nskip: [anchor, catalog]\n',
    );
    const result = await build(dir, repo, '--out', join(dir, 'out'));
    assert.deepEqual(
      result.report?.modules.map((m) => `${m.module} ${m.input}`),
      ['fleet infra/machines', 'policy infra/mesh'],
    );
    const flags = await build(dir, repo, '--out', join(dir, 'out2'), '--skip', 'fleet');
    assert.deepEqual(
      flags.report?.modules.map((m) => m.module),
      ['catalog', 'policy', 'anchor'],
      'flags win over labelwise.yaml',
    );
  }));

test('a broken labelwise.yaml is a BUILD_CONFIG_INVALID diagnostic with file and line', () =>
  withTemp(async (dir) => {
    await writeFile(
      join(dir, 'labelwise.yaml'),
      'parts:\n  fleet: ../../etc\n  nope: x\nonly: [fleet, bogus]\nextra: 1\n',
    );
    const { diagnostics } = readRepoConfig(RepoReader.open(dir));
    assert.deepEqual(
      diagnostics.map((d) => `${d.code} ${d.file}:${d.line} ${d.path}`),
      [
        'BUILD_CONFIG_INVALID labelwise.yaml:2 parts.fleet',
        'BUILD_CONFIG_INVALID labelwise.yaml:3 parts.nope',
        'BUILD_CONFIG_INVALID labelwise.yaml:4 only',
        'BUILD_CONFIG_INVALID labelwise.yaml:5 extra',
      ],
    );
  }));

const POD = (name: string, port: number): string =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  labels: {app: ${name}}\nspec:\n  containers:\n    - name: ${name}\n      image: nginx\n      ports: [{name: http, containerPort: ${port}}]\n`;
const SERVER =
  'apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata:\n  name: web-http\nspec:\n  podSelector: {matchLabels: {app: web}}\n  port: http\n';

interface CompiledPort {
  readonly port: number;
  readonly server: string;
}

/** Pod → the server deciding each of its ports, from the build's policy/compiled.json. */
async function compiledServers(repo: string, out: string): Promise<Record<string, string[]>> {
  const result = await build(repo, repo, '--out', out);
  assert.equal(result.code, 0, result.err);
  const compiled = JSON.parse(await readFile(join(out, 'policy', 'compiled.json'), 'utf8')) as {
    pods: { pod: string; ports: CompiledPort[] }[];
  };
  return Object.fromEntries(
    compiled.pods.map((p) => [p.pod, p.ports.map((port) => `${port.port} ${port.server}`)]),
  );
}

test("labelwise.yaml's policy namespaces, settings and accepted findings reach the policy stage", () =>
  withTemp(async (dir) => {
    const repo = join(dir, 'repo');
    await mkdir(join(repo, 'policy', 'web'), { recursive: true });
    await mkdir(join(repo, 'policy', 'api'), { recursive: true });
    await writeFile(join(repo, 'policy', 'web', 'web.yaml'), `${POD('web', 8080)}---\n${SERVER}`);
    await writeFile(join(repo, 'policy', 'api', 'api.yaml'), POD('api', 9090));
    // Without labelwise.yaml: both folders land in `default`, each file warned, Linkerd's
    // install default (all-unauthenticated) decides the port no Server selects.
    assert.deepEqual(await compiledServers(repo, join(dir, 'plain')), {
      'default/api': ['9090 default:all-unauthenticated'],
      'default/web': ['8080 default/web-http'],
    });
    await writeFile(
      join(repo, 'labelwise.yaml'),
      [
        'policy:',
        '  namespaces:',
        '    policy/web: shop',
        '  settings:',
        '    defaultPolicy: deny',
        'accept:',
        '  - code: POLICY_DEFAULT_NAMESPACE',
        '    file: policy/api',
        '    reason: the api folder is applied to default',
        '',
      ].join('\n'),
    );
    assert.deepEqual(await compiledServers(repo, join(dir, 'folders')), {
      'default/api': ['9090 default:deny'],
      'shop/web': ['8080 shop/web-http'],
    });
    const report = (await build(repo, repo, '--out', join(dir, 'report'))).report;
    assert.deepEqual(
      report?.diagnostics.map((d) => `${d.code} ${d.file} ${d.accepted?.by ?? 'open'}`),
      ['POLICY_DEFAULT_NAMESPACE policy/api/api.yaml config'],
      'the folder with a namespace is not warned; the accepted warning is listed as accepted',
    );
    assert.equal(report?.warnings, 0);
    // `namespace:` is `kubectl apply -n`: it wins over the folders, as -n does.
    await writeFile(
      join(repo, 'labelwise.yaml'),
      'policy:\n  namespace: edge\n  namespaces:\n    policy/web: shop\n',
    );
    assert.deepEqual(await compiledServers(repo, join(dir, 'n')), {
      'edge/api': ['9090 default:all-unauthenticated'],
      'edge/web': ['8080 edge/web-http'],
    });
  }));

test('a malformed policy or accept section is BUILD_CONFIG_INVALID at its line', () =>
  withTemp(async (dir) => {
    await writeFile(
      join(dir, 'labelwise.yaml'),
      [
        'policy:',
        '  namespace: Not_A_Namespace',
        '  namespaces:',
        '    ../outside: shop',
        '  settings:',
        '    clusterNetworks: 3',
        '    nope: x',
        '  extra: 1',
        'accept:',
        '  - code: POLICY_DEFAULT_NAMESPACE',
        '  - {code: x, reason: y}',
        '',
      ].join('\n'),
    );
    const { config, diagnostics } = readRepoConfig(RepoReader.open(dir));
    assert.deepEqual(
      diagnostics.map((d) => `${d.file}:${d.line} ${d.path}`),
      [
        'labelwise.yaml:2 policy.namespace',
        'labelwise.yaml:4 policy.namespaces["../outside"]',
        'labelwise.yaml:6 policy.settings.clusterNetworks',
        'labelwise.yaml:7 policy.settings.nope',
        'labelwise.yaml:8 policy.extra',
        'labelwise.yaml:10 accept[0].reason',
        'labelwise.yaml:11 accept[1].code',
      ],
    );
    assert.ok(diagnostics.every((d) => d.code === 'BUILD_CONFIG_INVALID'));
    assert.deepEqual(config.accept, [], 'a malformed rule accepts nothing');
  }));

test('a cluster setting the policy module refuses is its error finding, not a crash', () =>
  withTemp(async (dir) => {
    await mkdir(join(dir, 'policy'));
    await writeFile(join(dir, 'policy', 'api.yaml'), POD('api', 9090));
    await writeFile(
      join(dir, 'labelwise.yaml'),
      'policy:\n  settings:\n    clusterNetworks: [10.0.0.0/33]\n',
    );
    const result = await build(dir, dir, '--out', join(dir, 'out'));
    assert.equal(result.code, 1, result.err);
    assert.deepEqual(
      result.report?.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code),
      ['POLICY_INVALID_SETTING'],
    );
  }));

test('parts.policy may name one file: alternatives beside it are not applied with it', () =>
  withTemp(async (dir) => {
    const repo = join(dir, 'repo');
    await mkdir(join(repo, 'k8s'), { recursive: true });
    // booksapp's layout: booksapp.yml (SQLite) and k8s/mysql-app.yml (MySQL) define the same
    // Deployment; the README applies one or the other.
    const deployment = (image: string): string =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: webapp\n  namespace: booksapp\nspec:\n  selector: {matchLabels: {app: webapp}}\n  template:\n    metadata: {labels: {app: webapp}}\n    spec:\n      containers: [{name: webapp, image: ${image}, ports: [{containerPort: 7000}]}]\n`;
    await writeFile(join(repo, 'booksapp.yml'), deployment('books:sqlite'));
    await writeFile(join(repo, 'k8s', 'mysql-app.yml'), deployment('books:mysql'));
    await writeFile(join(repo, 'labelwise.yaml'), 'parts:\n  policy: booksapp.yml\n');
    const one = await build(repo, repo, '--out', join(dir, 'one'));
    assert.equal(one.code, 0, one.err);
    assert.deepEqual(
      one.report?.modules.map((m) => `${m.module} ${m.input} ${m.counts['files']}`),
      ['policy booksapp.yml 1'],
    );
    assert.deepEqual(one.report?.diagnostics, []);
    // Both in one applied folder are a duplicate, as they are to kubectl apply -R -f.
    await writeFile(join(repo, 'k8s', 'sqlite-app.yml'), deployment('books:sqlite'));
    await writeFile(join(repo, 'labelwise.yaml'), 'parts:\n  policy: k8s\n');
    const both = await build(repo, repo, '--out', join(dir, 'both'));
    assert.deepEqual(
      both.report?.diagnostics.map((d) => `${d.code} ${d.file}`),
      ['POLICY_DUPLICATE_OBJECT k8s/sqlite-app.yml'],
    );
  }));

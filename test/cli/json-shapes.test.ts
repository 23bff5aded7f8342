// Every `--json` shape the docs promise carries the fields the docs name. The shapes are data
// (json-shapes.json), each case naming the docs section it comes from; each command runs
// in-process on examples/homelab, or on a fixture made from it where the shape needs an input
// the example lacks (a redirect route, an accepted finding, a changed file, two git revisions).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';
import { skipWithout } from '../support/capabilities.js';

const ROOT = join(import.meta.dirname, '..', '..');
const HOMELAB = join(ROOT, 'examples', 'homelab');

interface ShapeCase {
  readonly name: string;
  readonly doc: string;
  readonly argv: readonly string[];
  readonly exit: number;
  readonly fields: readonly string[];
  /** Fields of the elements of `where` whose `status` is this (fleet affected's changed hosts). */
  readonly changed?: { where: string; status: string; fields: readonly string[] };
  /** Fields of every cell of every row (policy matrix). */
  readonly cells?: readonly string[];
  /** Why the case is known to fail; only for a finding handed to the module that owns it. */
  readonly todo?: string;
}

const SHAPES = JSON.parse(readFileSync(join(import.meta.dirname, 'json-shapes.json'), 'utf8')) as {
  cases: ShapeCase[];
};

/**
 * Why `path` ('a.b', 'a[].b') is missing from `value`, or undefined when every value on the path
 * has it. An array step needs one element somewhere (an anchor may claim no backend, but some
 * anchor must): a field of no element is not shown present.
 */
export function missingField(value: unknown, path: string): string | undefined {
  let current: unknown[] = [value];
  let walked = '';
  for (const step of path.split('.')) {
    const each = step.endsWith('[]');
    const key = each ? step.slice(0, -2) : step;
    walked = walked === '' ? step : `${walked}.${step}`;
    const next: unknown[] = [];
    for (const item of current) {
      if (item === null || typeof item !== 'object' || !Object.hasOwn(item, key))
        return `${walked}: no key ${JSON.stringify(key)}`;
      const child = (item as Record<string, unknown>)[key];
      if (!each) {
        next.push(child);
        continue;
      }
      if (!Array.isArray(child)) return `${walked}: not an array`;
      for (const element of child) next.push(element);
    }
    if (each && next.length === 0)
      return `${walked}: no element anywhere, so the elements' fields cannot be shown`;
    current = next;
  }
  return undefined;
}

test('missingField: keys, nested keys and every element of an array', () => {
  const value = {
    a: { b: 1 },
    list: [{ k: 1 }, { k: null }],
    none: [],
    odd: [{ k: 1 }, {}],
    nested: [{ in: [] }, { in: [{ k: 1 }] }],
  };
  assert.equal(missingField(value, 'a.b'), undefined);
  assert.equal(missingField(value, 'list[].k'), undefined, 'null is present');
  assert.match(missingField(value, 'a.c') ?? '', /no key "c"/);
  assert.match(missingField(value, 'none[].k') ?? '', /no element anywhere/);
  assert.equal(missingField(value, 'nested[].in[].k'), undefined, 'one element is enough');
  assert.match(missingField(value, 'odd[].k') ?? '', /no key "k"/);
});

/** What the placeholders of the data file stand for, made once for every case. */
function fixtures(dir: string): Record<string, string> {
  const git = (cwd: string, ...args: string[]): void => {
    execFileSync('git', ['-c', 'user.name=labelwise', '-c', 'user.email=t@example.org', ...args], {
      cwd,
      stdio: 'ignore',
    });
  };
  const committed = (name: string, from: string): string => {
    const at = join(dir, name);
    cpSync(from, at, { recursive: true });
    git(at, 'init', '-q');
    git(at, 'add', '-A');
    git(at, 'commit', '-q', '-m', 'fixture');
    return at;
  };
  const editLayer = (fleet: string): void => {
    const file = join(fleet, 'layers', 'role-web', 'nginx.yaml');
    const text = readFileSync(file, 'utf8');
    const next = text.replace('mode: "0640"', 'mode: "0600"');
    assert.notEqual(next, text, 'the fixture edit must change the layer');
    writeFileSync(file, next);
  };

  const policy = join(dir, 'policy');
  cpSync(join(HOMELAB, 'policy'), policy, { recursive: true });
  cpSync(join(import.meta.dirname, 'fixtures', 'json-shapes', 'policy'), policy, {
    recursive: true,
  });

  const catalog = join(dir, 'catalog-changed');
  cpSync(join(HOMELAB, 'catalog'), join(catalog, 'catalog'), { recursive: true });
  cpSync(join(HOMELAB, 'apps'), join(catalog, 'apps'), { recursive: true });
  appendFileSync(join(catalog, 'apps', 'blog', 'deployment-blog.yaml'), '# edited by hand\n');

  const accepted = join(dir, 'policy-accepted');
  cpSync(join(HOMELAB, 'policy'), accepted, { recursive: true });
  const pods = join(accepted, 'pods.yaml');
  const podsText = readFileSync(pods, 'utf8');
  const annotated = podsText.replace(
    '  name: authors-0\n  namespace: booksapp\n',
    '  name: authors-0\n  namespace: booksapp\n  annotations:\n' +
      '    ignore-check.labelwise.io/POLICY_PROBE_NOT_ROUTED: the probes are answered by the proxy\n',
  );
  assert.notEqual(annotated, podsText, 'the fixture edit must annotate the pod');
  writeFileSync(pods, annotated);

  const fleet = committed('fleet-git', join(HOMELAB, 'fleet'));
  editLayer(fleet);
  const repo = committed('repo-git', HOMELAB);
  editLayer(join(repo, 'fleet'));
  return {
    $HOMELAB: HOMELAB,
    $POLICY_EXTRA: policy,
    $POLICY_ACCEPTED: accepted,
    $CATALOG_CHANGED: catalog,
    $FLEET_GIT: fleet,
    $REPO_GIT: repo,
  };
}

function substitute(arg: string, places: Record<string, string>): string {
  return arg.replace(/\$[A-Z_]+/g, (name) => places[name] ?? name);
}

function assertFields(value: unknown, fields: readonly string[], where: string): void {
  const missing = fields.flatMap((f) => {
    const why = missingField(value, f);
    return why === undefined ? [] : [`${f} (${why})`];
  });
  assert.deepEqual(missing, [], `${where}: documented fields missing`);
}

test('every documented --json shape carries its documented fields', async (t) => {
  if (skipWithout(t, 'git')) return;
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-json-shapes-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const places = fixtures(dir);
  for (const shape of SHAPES.cases) {
    await t.test(
      `${shape.name} (${shape.doc})`,
      shape.todo === undefined ? {} : { todo: shape.todo },
      async () => {
        const io = memoryIO({ cwd: HOMELAB });
        const code = await run(
          shape.argv.map((a) => substitute(a, places)),
          io,
        );
        assert.equal(code, shape.exit, io.err);
        const value = JSON.parse(io.out) as Record<string, unknown>;
        assertFields(value, shape.fields, shape.name);
        if (shape.changed !== undefined) {
          const { where, status, fields } = shape.changed;
          const items = (value[where] as Record<string, unknown>[]).filter(
            (i) => i['status'] === status,
          );
          assert.ok(items.length > 0, `the fixture must give a ${status} element of ${where}`);
          for (const item of items) assertFields(item, fields, `${shape.name}: ${where}[]`);
        }
        if (shape.cells !== undefined) {
          for (const row of value['rows'] as { cells: Record<string, unknown> }[])
            for (const cell of Object.values(row.cells))
              assertFields(cell, shape.cells, `${shape.name}: rows[].cells`);
        }
      },
    );
  }
});

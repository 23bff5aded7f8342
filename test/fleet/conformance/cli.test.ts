// Conformance with Datum's command tests (cmd/datum/*_test.go), recorded as data in
// cli.cases.yaml: each case writes Datum's worked example (plus its own files) into a temporary
// directory, runs `labelwise fleet …` in-process and checks the exit code and output. Cases that
// compare revisions commit the example first and the case's files on top (skipped without git).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { cli, commitAllIn, gitIn, tempTree } from '../cli-helpers.js';
import { skipWithout } from '../../support/capabilities.js';

interface CliCase {
  name: string;
  upstream: { file: string; test: string };
  args: string[];
  code: number;
  git?: boolean;
  files?: Record<string, string | null>;
  stdout?: string[];
  stderr?: string[];
  output?: string[];
  /** Text that must appear exactly once in stdout + stderr. */
  once?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const suite = parse(readFileSync(join(here, 'cli.cases.yaml'), 'utf8')) as {
  defaults: { files: Record<string, string> };
  cases: CliCase[];
};

function write(dir: string, files: Record<string, string | null>): void {
  for (const [path, text] of Object.entries(files)) {
    const full = join(dir, path);
    if (text === null) rmSync(full, { force: true });
    else {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
    }
  }
}

for (const c of suite.cases) {
  test(`datum cli: ${c.name} (${c.upstream.file} ${c.upstream.test})`, async (t) => {
    if (c.git === true) {
      if (skipWithout(t, 'git')) return;
    }
    const dir = tempTree(c.git === true ? suite.defaults.files : {});
    try {
      if (c.git === true) {
        commitAllIn(dir, 'initial');
        write(dir, c.files ?? {});
        gitIn(dir, 'add', '-A');
        gitIn(dir, 'commit', '-q', '--allow-empty', '-m', 'change');
      } else write(dir, { ...suite.defaults.files, ...(c.files ?? {}) });
      const r = await cli(...c.args.map((a) => a.replace('{dir}', join(dir, 'fleet'))));
      const all = r.out + r.err;
      assert.equal(r.code, c.code, all);
      for (const want of c.stdout ?? [])
        assert.ok(r.out.includes(want), `stdout lacks ${want}:\n${r.out}`);
      for (const want of c.stderr ?? [])
        assert.ok(r.err.includes(want), `stderr lacks ${want}:\n${r.err}`);
      for (const want of c.output ?? [])
        assert.ok(all.includes(want), `output lacks ${want}:\n${all}`);
      if (c.once !== undefined) assert.equal(all.split(c.once).length - 1, 1, all);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

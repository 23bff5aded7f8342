// The Compose loader against a real Compose implementation and the Compose specification:
// every case in cases/*.yaml is loaded and its merged model compared with what the source
// printed (docker-compose 1.29.2 `config`) or states (the specification, compose-go's tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import {
  loadComposeProject,
  memoryFileSystem,
  projectSnapshot,
} from '../../../../src/anchor/index.js';
import { splitCommand } from '../../../../src/anchor/compose/compose-text.js';
import { interpolate, lookupIn } from '../../../../src/anchor/compose/interpolate.js';
import { parseDotEnv } from '../../../../src/anchor/compose/dotenv.js';
import type { ComposeCase } from './cases.js';

const here = dirname(fileURLToPath(import.meta.url));
const caseFiles = readdirSync(join(here, 'cases'))
  .filter((f) => f.endsWith('.yaml'))
  .sort();

/** The recorded form of a service, with a string command split as Compose splits it. */
function normalise(services: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(services)) {
    const svc = { ...(value as Record<string, unknown>) };
    if (typeof svc.command === 'string') svc.command = splitCommand(svc.command);
    out[name] = svc;
  }
  return out;
}

let count = 0;
for (const file of caseFiles) {
  const cases = parse(readFileSync(join(here, 'cases', file), 'utf8')) as ComposeCase[];
  for (const c of cases) {
    count++;
    test(`${file}: ${c.name} [${c.source}]`, () => {
      assert.ok(c.source.length > 0, 'every case names its source');
      const loaded = loadComposeProject({
        files: c.composeFiles ?? ['compose.yaml'],
        fs: memoryFileSystem(c.files),
        directoryName: c.directoryName ?? 'project',
        project: c.project,
        environment: c.environment,
        profiles: c.profiles,
      });
      const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
      if (c.expectErrors !== undefined) {
        for (const want of c.expectErrors)
          assert.ok(
            errors.some(
              (d) =>
                d.code === want.code &&
                (want.file === undefined || d.file === want.file) &&
                (want.line === undefined || d.line === want.line),
            ),
            `expected ${JSON.stringify(want)} among ${JSON.stringify(errors)}`,
          );
      } else assert.deepEqual(errors, [], 'no errors');
      if (c.expect !== undefined) {
        const got = projectSnapshot(loaded.project);
        if (c.expect.name !== undefined) assert.equal(got.name, c.expect.name, 'project name');
        if (c.expect.services !== undefined)
          assert.deepEqual(got.services, normalise(c.expect.services), 'services');
        if (c.expect.ipv6Networks !== undefined)
          assert.deepEqual(got.ipv6Networks, c.expect.ipv6Networks, 'IPv6 networks');
      }
      if (c.unsetVariables !== undefined) {
        const warned = loaded.diagnostics
          .filter((d) => d.code === 'ANCHOR_COMPOSE_VARIABLE' && d.severity === 'warning')
          .map((d) => /variable (\w+) is not set/.exec(d.message)?.[1])
          .filter((v): v is string => v !== undefined);
        assert.deepEqual([...new Set(warned)].sort(), c.unsetVariables, 'unset-variable warnings');
      }
    });
  }
}

test('the conformance suite is not empty', () => {
  assert.ok(count >= 10, `${count} cases`);
});

interface InterpolationCase {
  readonly test: string;
  readonly template: string;
  readonly want?: string;
  readonly error?: string;
  readonly warns?: string[];
}
const interpolation = parse(readFileSync(join(here, 'interpolation.yaml'), 'utf8')) as {
  variables: Record<string, string>;
  cases: InterpolationCase[];
};
for (const c of interpolation.cases) {
  test(`interpolation [compose-go template_test.go ${c.test}]: ${JSON.stringify(c.template)}`, () => {
    const result = interpolate(c.template, lookupIn(interpolation.variables));
    const errors = result.problems.filter((p) => p.severity === 'error');
    if (c.error !== undefined) {
      assert.equal(errors.length, 1, JSON.stringify(result));
      if (c.error === 'invalid') assert.equal(errors[0]?.kind, 'invalid');
      else assert.equal(errors[0]?.message, c.error);
      return;
    }
    assert.deepEqual(errors, []);
    assert.equal(result.text, c.want);
    assert.deepEqual(
      result.problems.map((p) => /variable (\w+) is not set/.exec(p.message)?.[1]),
      c.warns ?? [],
    );
  });
}

const dotenv = parse(readFileSync(join(here, 'dotenv.yaml'), 'utf8')) as {
  cases: { line: string; key: string; value: string }[];
};
for (const c of dotenv.cases) {
  test(`dotenv [compose-go godotenv_test.go TestParsing]: ${JSON.stringify(c.line)}`, () => {
    const result = parseDotEnv(c.line);
    assert.deepEqual(result.problems, []);
    assert.deepEqual([...result.values], [[c.key, c.value]]);
  });
}

test('every deliberate skip names its upstream case and a reason', () => {
  const skipped = parse(readFileSync(join(here, 'skipped.yaml'), 'utf8')) as {
    upstream: string;
    reason: string;
  }[];
  assert.ok(skipped.length > 0);
  for (const s of skipped) {
    assert.ok(s.upstream.length > 0 && s.reason.length > 20, JSON.stringify(s));
  }
});

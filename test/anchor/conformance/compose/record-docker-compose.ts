// Records `expect` for the cases in cases/docker-compose.yaml from a real Compose
// implementation: `docker-compose config` (Debian's docker-compose 1.29.2 prints the merged
// project without an engine). Run by hand after changing a case:
//   npx tsx test/anchor/conformance/compose/record-docker-compose.ts
// It is not a test: the test runner reads the recorded data.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseDocument } from 'yaml';
import type { ComposeCase } from './cases.js';

const here = dirname(fileURLToPath(import.meta.url));
const casesFile = join(here, 'cases', 'docker-compose.yaml');

interface ConfigOutput {
  services?: Record<string, Record<string, unknown>>;
  networks?: Record<string, { enable_ipv6?: boolean } | null>;
}

/** `config` writes `$` as `$$` so its output can be read again; the value has one. */
function unescape(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/\$\$/g, '$');
  if (Array.isArray(value)) return value.map(unescape);
  return value;
}

function project(output: ConfigOutput): NonNullable<ComposeCase['expect']> {
  const services: Record<string, unknown> = {};
  for (const [name, svc] of Object.entries(output.services ?? {}).sort(([a], [b]) =>
    a < b ? -1 : 1,
  )) {
    const environment: Record<string, string> = {};
    for (const [k, v] of Object.entries((svc.environment ?? {}) as Record<string, unknown>).sort())
      if (v !== null) environment[k] = String(unescape(v));
    const labels: Record<string, string> = {};
    for (const [k, v] of Object.entries((svc.labels ?? {}) as Record<string, unknown>).sort())
      labels[k] = v === null ? '' : String(unescape(v));
    const nets = svc.networks as Record<string, unknown> | string[] | undefined;
    const networks =
      nets === undefined
        ? svc.network_mode === undefined
          ? ['default']
          : []
        : (Array.isArray(nets) ? nets : Object.keys(nets)).sort();
    services[name] = {
      environment,
      labels,
      ...(svc.command !== undefined ? { command: unescape(svc.command) } : {}),
      networks,
      ...(svc.network_mode !== undefined ? { network_mode: svc.network_mode } : {}),
    };
  }
  const ipv6Networks = Object.entries(output.networks ?? {})
    .filter(([, n]) => n?.enable_ipv6 === true)
    .map(([n]) => n)
    .sort();
  return { services, ipv6Networks };
}

const doc = parseDocument(readFileSync(casesFile, 'utf8'));
const cases = doc.toJS() as ComposeCase[];
cases.forEach((c, index) => {
  const dir = mkdtempSync(join(tmpdir(), 'compose-case-'));
  const projectDir = join(dir, 'project');
  try {
    for (const [path, text] of Object.entries(c.files)) {
      mkdirSync(dirname(join(projectDir, path)), { recursive: true });
      writeFileSync(join(projectDir, path), text);
    }
    const files = c.composeFiles ?? ['compose.yaml'];
    const result = spawnSync('docker-compose', [...files.flatMap((f) => ['-f', f]), 'config'], {
      cwd: projectDir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...(c.environment ?? {}) },
      encoding: 'utf8',
    });
    const unset = [...result.stderr.matchAll(/The (\w+) variable is not set/g)].map((m) => m[1]);
    const item = doc.getIn([index]) as { set(key: string, value: unknown): void };
    if (result.status !== 0) {
      const first = result.stderr.trim().split('\n').slice(-3).join(' | ');
      console.log(`${c.name}: docker-compose failed: ${first}`);
      if (c.expectErrors === undefined) throw new Error(`${c.name}: unexpected failure`);
      item.set('recorded', { exitCode: result.status, stderr: first });
      return;
    }
    if (c.expectErrors !== undefined) throw new Error(`${c.name}: docker-compose accepted it`);
    item.set('expect', project(parse(result.stdout) as ConfigOutput));
    item.set('unsetVariables', [...new Set(unset)].sort());
    console.log(`${c.name}: recorded`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
writeFileSync(casesFile, doc.toString({ lineWidth: 0 }));

/**
 * Generates `docs/cli.md` from the real `--help` output of every command, so the reference can
 * never drift from the CLI. `npm run docs:cli` rewrites it; `test/cli/reference.test.ts` fails
 * when it is stale.
 */
import { writeFileSync } from 'node:fs';
import { memoryIO } from '../src/cli/io.js';
import { run } from '../src/cli/main.js';

const GROUPS = [
  'build',
  'diff',
  'selector',
  'fleet',
  'catalog',
  'policy',
  'anchor',
  'schema',
] as const;

async function help(argv: string[]): Promise<string> {
  const io = memoryIO({ env: { NO_COLOR: '1' } });
  await run([...argv, '--help'], io);
  return io.out.trimEnd();
}

/** Subcommand names listed under "Commands:" in a group's help. */
function subcommands(text: string): string[] {
  const at = text.indexOf('\nCommands:\n');
  if (at < 0) return [];
  const names: string[] = [];
  for (const line of text.slice(at + 11).split('\n')) {
    const match = /^ {2}([a-z][a-z-]*)/.exec(line);
    if (match === null) {
      if (line.trim() === '' || !line.startsWith('   ')) break;
      continue;
    }
    if (match[1] !== 'help') names.push(match[1] as string);
  }
  return names;
}

export async function cliReference(): Promise<string> {
  const parts = [
    '# CLI reference',
    '',
    'Generated from the real `--help` output by `npm run docs:cli`; a test fails when it is stale.',
    '',
    'Every command takes `--json` and `--help`. Exit codes: `0` success, `1` invalid input or a failed',
    'check, `2` a check found differences, `3` could not run (missing Docker, unreadable file), `70`',
    'internal error.',
    '',
    '## labelwise',
    '',
    '```text',
    await help([]),
    '```',
  ];
  for (const group of GROUPS) {
    const text = await help([group]);
    parts.push('', `## labelwise ${group}`, '', '```text', text, '```');
    for (const sub of subcommands(text)) {
      parts.push(
        '',
        `### labelwise ${group} ${sub}`,
        '',
        '```text',
        await help([group, sub]),
        '```',
      );
    }
  }
  return `${parts.join('\n')}\n`;
}

if (process.argv[1]?.endsWith('cli-reference.ts')) {
  writeFileSync('docs/cli.md', await cliReference());
  console.log('wrote docs/cli.md');
}

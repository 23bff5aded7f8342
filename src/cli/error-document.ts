/**
 * A failure as a document of the format asked for. CI recipes redirect stdout to a file and
 * upload it (`--format sarif > labelwise.sarif`): a run that could not start still leaves a
 * valid SARIF log, JUnit report or JSON document there, holding the one diagnostic.
 */
import { diagnosticsJson, toJunit, toSarif } from '../base/index.js';
import type { Diagnostic } from '../base/index.js';

export type DocumentFormat = 'json' | 'sarif' | 'junit';

/** The machine-readable format `args` ask for (before a `--`), or undefined for text. */
export function requestedFormat(args: readonly string[]): DocumentFormat | undefined {
  const end = args.indexOf('--');
  const head = end < 0 ? args : args.slice(0, end);
  let format: string | undefined;
  for (let i = 0; i < head.length; i++) {
    const arg = head[i] as string;
    if (arg === '--format') format = head[i + 1];
    else if (arg.startsWith('--format=')) format = arg.slice('--format='.length);
  }
  if (format === 'sarif' || format === 'junit' || format === 'json') return format;
  return head.includes('--json') ? 'json' : undefined;
}

/** The document for one diagnostic; JSON adds `extra` (the selector commands' `error`). */
export function errorDocument(
  format: DocumentFormat,
  diagnostic: Diagnostic,
  command: string,
  version: string,
  extra: Record<string, unknown> = {},
): string {
  if (format === 'sarif')
    return `${JSON.stringify(toSarif([diagnostic], { version, command }), null, 2)}\n`;
  if (format === 'junit') return toJunit([diagnostic], { name: command });
  return `${JSON.stringify({ ...extra, ...diagnosticsJson([diagnostic]) }, null, 2)}\n`;
}

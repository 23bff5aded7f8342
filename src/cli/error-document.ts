/**
 * A failure as a document of the format asked for. CI recipes redirect stdout to a file and
 * upload it (`--format sarif > labelwise.sarif`): a run that could not start still leaves a
 * valid SARIF log, JUnit report or JSON document there, holding the one diagnostic.
 */
// base's files, not its index: every command's usage errors pass through here (see main.ts).
import { diagnosticsJson } from '../base/diagnostic.js';
import type { Diagnostic } from '../base/diagnostic.js';
import { toJunit } from '../base/formats/junit.js';
import { toSarif } from '../base/formats/sarif.js';

export type { DocumentFormat } from './requested-format.js';
export { requestedFormat } from './requested-format.js';
import type { DocumentFormat } from './requested-format.js';

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

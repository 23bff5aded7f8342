import { diagnosticFromError, formatDiagnostic } from '../base/diagnostic.js';
import { escapeControl } from '../base/text.js';
import type { LabelwiseError } from '../base/errors.js';

/**
 * A user error in the one diagnostic layout (`file:line:col: error CODE: message`, then
 * `  hint: …`), escaped. With the input text of a single-expression command, a caret line under
 * the first line points at the offset; without it, the offset is named.
 */
export function formatError(error: LabelwiseError, input?: string): string {
  const { offset, file } = error.source;
  const [first, ...rest] = formatDiagnostic(diagnosticFromError(error)).split('\n');
  let text = first ?? '';
  if (offset !== undefined && file === undefined) {
    if (input !== undefined && !input.includes('\n') && input.length <= 200)
      text += `\n  ${escapeControl(input, true)}\n  ${' '.repeat(Math.min(offset, input.length))}^`;
    else text = `offset ${offset}: ${text}`;
  }
  return [text, ...rest].join('\n');
}

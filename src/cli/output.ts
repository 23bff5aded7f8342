import { formatDiagnostic } from '../base/diagnostic.js';
import type { Diagnostic } from '../base/diagnostic.js';
import { escapeControl } from '../base/text.js';
import type { CliIO } from './io.js';

/** Prints one JSON value on stdout: two-space indent, trailing newline. */
export function printJson(io: CliIO, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** Whether to colour output: only on a terminal, and never with NO_COLOR set. */
export function useColour(io: CliIO): boolean {
  return io.isTTY && (io.env.NO_COLOR === undefined || io.env.NO_COLOR === '');
}

const CODES = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1 } as const;

/** Wraps text in an ANSI colour when colour is on. */
export function paint(io: CliIO, colour: keyof typeof CODES, text: string): string {
  return useColour(io) ? `\u001b[${CODES[colour]}m${text}\u001b[0m` : text;
}

/**
 * Renders rows as an aligned text table. The first row is the header. Cells are padded by their
 * visible width (ANSI colour codes do not count).
 */
export function renderTable(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  // eslint-disable-next-line no-control-regex -- ANSI colour codes start with ESC by definition
  const visible = (cell: string): number => cell.replace(/\u001b\[[0-9;]*m/g, '').length;
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visible(cell))));
  return rows
    .map((row) =>
      row
        .map((cell, i) =>
          i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visible(cell)),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}

/**
 * One diagnostic for the terminal: the one layout (`formatDiagnostic`) with the severity word
 * coloured on a TTY, and its witness, when it has one, on a line of its own before the hint.
 */
export function paintDiagnostic(d: Diagnostic, io: CliIO): string {
  let text = formatDiagnostic(d);
  const word = d.severity;
  const painted = paint(io, word === 'error' ? 'red' : 'yellow', word);
  // Colour only the severity word, after escaping (the layout is `location: severity CODE`).
  if (text.startsWith(`${word} `)) text = painted + text.slice(word.length);
  else text = text.replace(`: ${word} ${d.code}`, `: ${painted} ${d.code}`);
  if (d.witness !== undefined) {
    const hint = text.indexOf('\n  hint: ');
    const line = `\n  witness: ${escapeControl(JSON.stringify(d.witness), true)}`;
    text = hint < 0 ? text + line : text.slice(0, hint) + line + text.slice(hint);
  }
  return text;
}

/**
 * `labelwise selector match` as most runs spell it, answered without commander or the rest of
 * the selector core: start-up is part of the CLI contract (within 1.5× `node -e 0`, bench
 * `start`), and loading commander and every syntax costs more than the match itself.
 *
 * {@link quickMatch} takes only command lines whose meaning under commander is plain (one
 * selector argument, `--labels`, `--json`, `--explain`) and only when they succeed; anything
 * else, and every error, is left to the full command in selector.ts, which prints the same
 * output for the runs answered here (test/cli/selector-match-quick.test.ts compares the two).
 */
import { LabelwiseError } from '../base/errors.js';
import { escapeControl } from '../base/text.js';
import { explain } from '../selector/match.js';
import type { Explanation } from '../selector/match.js';
import { parseSelector } from '../selector/syntax/k8s.js';
import { parseLabelList } from '../selector/syntax/label-list.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, printJson, renderTable } from './output.js';

/** Prints a match result as `selector match` does, in text or `--json`. */
export function printMatch(
  result: Explanation,
  flags: { json?: boolean; explain?: boolean },
  io: CliIO,
): void {
  if (flags.json) {
    printJson(io, {
      matched: result.matched,
      terms: result.terms.map((t) => ({ requirement: t.requirement, ok: t.ok, actual: t.actual })),
    });
    return;
  }
  io.stdout(
    result.matched ? `${paint(io, 'green', 'matched')}\n` : `${paint(io, 'red', 'not matched')}\n`,
  );
  if (result.note !== undefined) io.stdout(`${result.note}\n`);
  if (flags.explain && result.terms.length > 0) {
    const rows = result.terms.map((t) => [
      t.ok ? paint(io, 'green', 'ok') : paint(io, 'red', 'FAIL'),
      escapeControl(t.requirement, true),
      t.actual === null ? '(absent)' : JSON.stringify(t.actual),
    ]);
    io.stdout(renderTable([['RESULT', 'REQUIREMENT', 'ACTUAL'], ...rows]));
  }
}

interface PlainMatch {
  expr: string;
  labels: string;
  json: boolean;
  explain: boolean;
}

/**
 * The flags of a plain `match` command line (the words after `match`), or undefined when any
 * word could mean something else to commander: another flag, a repeated `--labels`, a second
 * argument, `-` (stdin), a value that starts with `-`, or `--`.
 */
function plainMatch(args: readonly string[]): PlainMatch | undefined {
  let expr: string | undefined;
  let labels: string | undefined;
  let json = false;
  let explainFlag = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--json') json = true;
    else if (arg === '--explain') explainFlag = true;
    else if (arg === '--labels' || arg.startsWith('--labels=')) {
      const value = arg === '--labels' ? args[++i] : arg.slice('--labels='.length);
      if (labels !== undefined || value === undefined || value.startsWith('-')) return undefined;
      labels = value;
    } else if (arg.startsWith('-') || expr !== undefined) return undefined;
    else expr = arg;
  }
  if (expr === undefined || labels === undefined) return undefined;
  return { expr, labels, json, explain: explainFlag };
}

/**
 * Answers `labelwise selector match …` (`args` after `match`) when the command line is plain
 * and the run succeeds, and returns its exit code; otherwise returns undefined having printed
 * nothing, for the full command to run (and report any error in its documented shapes).
 */
export function quickMatch(args: readonly string[], io: CliIO): number | undefined {
  const flags = plainMatch(args);
  if (flags === undefined) return undefined;
  let result: Explanation;
  try {
    // What the full command does for these flags: `--syntax k8s`, no `--profile`.
    result = explain(parseSelector(flags.expr, {}), parseLabelList(flags.labels));
  } catch (error) {
    if (error instanceof LabelwiseError) return undefined;
    throw error;
  }
  printMatch(result, flags, io);
  return EXIT.ok;
}

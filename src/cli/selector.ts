/**
 * `labelwise selector parse|match|overlap|subsumes`: the selector core on the command line.
 * JSON shapes are the DESIGN.md contract. `match`, `overlap` and `subsumes` exit 0 whenever they
 * answered; the answer is in the output. Parse errors exit 1 with the offending position.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { LabelwiseError } from '../base/errors.js';
import {
  compareStrings,
  explain,
  formatSelector,
  overlap,
  parseLabelJson,
  parseLabelList,
  parseSyntax,
  subsumes,
  SYNTAXES,
} from '../selector/index.js';
import type { Labels, Selector, SyntaxName, ValidationProfile } from '../selector/index.js';
import { formatError } from './format-error.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { paint, printJson, renderTable } from './output.js';
import { configureSubcommand, createProgram, runProgram } from './program.js';

interface SyntaxFlags {
  syntax: SyntaxName;
  profile?: ValidationProfile | 'none';
  json?: boolean;
}

function syntaxOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--syntax <syntax>', 'selector syntax').choices([...SYNTAXES]).default('k8s'),
    )
    .addOption(
      new Option(
        '--profile <profile>',
        'key/value rules for k8s and match syntaxes (default: kubernetes for k8s, datum for match)',
      ).choices(['kubernetes', 'datum', 'docker', 'none']),
    )
    .option('--json', 'print JSON on stdout');
}

/** Parses one selector argument, re-raising errors with the argument's text for the caret. */
function read(text: string, flags: SyntaxFlags, io: CliIO): Selector {
  try {
    return parseSyntax(
      flags.syntax,
      text,
      flags.profile === undefined ? {} : { profile: flags.profile },
    );
  } catch (error) {
    if (error instanceof LabelwiseError && !flags.json) {
      io.stderr(`labelwise selector: ${formatError(error, text)}\n`);
      throw new ReportedError();
    }
    throw error;
  }
}

/** Reads `--labels` or `--labels-json`; errors point a caret into the flag's text. */
function readLabels(
  flags: { labels?: string; labelsJson?: string; json?: boolean },
  io: CliIO,
): Labels {
  const text = flags.labels ?? (flags.labelsJson as string);
  try {
    return flags.labels !== undefined ? parseLabelList(text) : parseLabelJson(text);
  } catch (error) {
    if (error instanceof LabelwiseError && !flags.json) {
      io.stderr(`labelwise selector: ${formatError(error, text)}\n`);
      throw new ReportedError();
    }
    throw error;
  }
}

/** An error already printed for the user; only the exit code remains to be set. */
class ReportedError extends Error {}

/** Labels for JSON output, keys in code-point order. Prototype-free so `__proto__` stays a key. */
function labelsJson(labels: Labels): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const key of Object.keys(labels).sort(compareStrings)) out[key] = labels[key] as string;
  return out;
}

function showLabels(labels: Labels): string {
  const keys = Object.keys(labels).sort(compareStrings);
  return keys.length === 0 ? '{} (no labels)' : keys.map((k) => `${k}=${labels[k]}`).join(',');
}

function requirementsJson(
  selector: Selector,
): { key: string; operator: string; values: string[] }[] {
  return selector.requirements.map((r) => ({
    key: r.key,
    operator: r.operator,
    values: [...r.values],
  }));
}

export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const exit: { code: number } = { code: EXIT.ok };
  const program = createProgram(
    'labelwise selector',
    'Parse, match, explain and compare label selectors.',
    io,
  );
  const guard =
    <A extends unknown[]>(action: (...a: A) => void) =>
    (...a: A): void => {
      try {
        action(...a);
      } catch (error) {
        if (error instanceof ReportedError) exit.code = EXIT.invalid;
        else throw error;
      }
    };

  syntaxOptions(
    configureSubcommand(program.command('parse'), io)
      .description('parse a selector and print its canonical Kubernetes form and requirements')
      .argument('<expr>', 'the selector')
      .addHelpText(
        'after',
        "\nExamples:\n  labelwise selector parse 'tier in (web,api),!canary'\n  labelwise selector parse 'anchord.role=ldap' --syntax equality --json",
      ),
  ).action(
    guard((expr: string, flags: SyntaxFlags) => {
      const selector = read(expr, flags, io);
      const canonical = formatSelector(selector);
      if (flags.json) {
        printJson(io, { canonical, requirements: requirementsJson(selector) });
        return;
      }
      io.stdout(`${canonical === '' ? '(everything: no requirements)' : canonical}\n`);
      if (selector.requirements.length > 0) {
        const rows = selector.requirements.map((r) => [
          r.key,
          r.operator,
          r.values.map((v) => JSON.stringify(v)).join(' '),
        ]);
        io.stdout(renderTable([['KEY', 'OPERATOR', 'VALUES'], ...rows]));
      }
    }),
  );

  syntaxOptions(
    configureSubcommand(program.command('match'), io)
      .description('test a selector against a label set')
      .argument('<expr>', 'the selector')
      .option('--labels <list>', "the label set as 'k=v,k2=v2' (split at the first '=')")
      .option('--labels-json <object>', 'the label set as a JSON object')
      .option('--explain', 'show every requirement with its result and the actual value')
      .addHelpText(
        'after',
        "\nExample:\n  labelwise selector match 'tier in (web,api),!canary' --labels 'tier=web' --explain",
      ),
  ).action(
    guard(
      (
        expr: string,
        flags: SyntaxFlags & { labels?: string; labelsJson?: string; explain?: boolean },
      ) => {
        if ((flags.labels === undefined) === (flags.labelsJson === undefined)) {
          throw new LabelwiseError(
            'CLI_USAGE',
            'give the label set with exactly one of --labels or --labels-json',
          );
        }
        const selector = read(expr, flags, io);
        const labels = readLabels(flags, io);
        const result = explain(selector, labels);
        if (flags.json) {
          printJson(io, {
            matched: result.matched,
            terms: result.terms.map((t) => ({
              requirement: t.requirement,
              ok: t.ok,
              actual: t.actual,
            })),
          });
          return;
        }
        io.stdout(
          result.matched
            ? `${paint(io, 'green', 'matched')}\n`
            : `${paint(io, 'red', 'not matched')}\n`,
        );
        if (result.note !== undefined) io.stdout(`${result.note}\n`);
        if (flags.explain && result.terms.length > 0) {
          const rows = result.terms.map((t) => [
            t.ok ? paint(io, 'green', 'ok') : paint(io, 'red', 'FAIL'),
            t.requirement,
            t.actual === null ? '(absent)' : JSON.stringify(t.actual),
          ]);
          io.stdout(renderTable([['RESULT', 'REQUIREMENT', 'ACTUAL'], ...rows]));
        }
      },
    ),
  );

  syntaxOptions(
    configureSubcommand(program.command('overlap'), io)
      .description(
        'can one label set match both selectors? prints a witness or a proof of disjointness',
      )
      .argument('<a>', 'first selector')
      .argument('<b>', 'second selector')
      .addHelpText('after', "\nExample:\n  labelwise selector overlap 'tier!=frontend' '!tier'"),
  ).action(
    guard((a: string, b: string, flags: SyntaxFlags) => {
      const result = overlap(read(a, flags, io), read(b, flags, io));
      if (flags.json) {
        printJson(io, {
          overlap: result.overlap,
          witness: result.overlap ? labelsJson(result.witness) : null,
          reason: result.overlap ? null : result.proof.reason,
        });
        return;
      }
      if (result.overlap)
        io.stdout(`overlap: a label set matched by both is ${showLabels(result.witness)}\n`);
      else io.stdout(`disjoint: ${result.proof.reason}\n`);
    }),
  );

  syntaxOptions(
    configureSubcommand(program.command('subsumes'), io)
      .description('does A match every label set B matches? prints a counterexample when not')
      .argument('<a>', 'the wider selector')
      .argument('<b>', 'the narrower selector')
      .addHelpText('after', "\nExample:\n  labelwise selector subsumes 'env' 'env notin (dev)'"),
  ).action(
    guard((a: string, b: string, flags: SyntaxFlags) => {
      const result = subsumes(read(a, flags, io), read(b, flags, io));
      if (flags.json) {
        printJson(io, {
          subsumes: result.subsumes,
          counterexample: result.subsumes ? null : labelsJson(result.counterexample),
        });
        return;
      }
      if (result.subsumes) io.stdout('subsumes: every label set B matches, A matches too\n');
      else
        io.stdout(
          `does not subsume: B matches ${showLabels(result.counterexample)} but A does not\n`,
        );
    }),
  );

  program.addHelpText(
    'after',
    "\nExample:\n  labelwise selector match 'app=web,env!=dev' --labels 'app=web' --explain",
  );
  if (args.length === 0) {
    io.stderr(program.helpInformation());
    return EXIT.invalid;
  }
  return runProgram(program, args, exit);
}

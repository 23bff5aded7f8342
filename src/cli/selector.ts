/**
 * `labelwise selector parse|match|overlap|subsumes`: the selector core on the command line.
 * JSON shapes are the DESIGN.md contract. `match`, `overlap` and `subsumes` exit 0 whenever they
 * answered; the answer is in the output. Parse errors exit 1 with the offending position.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { LabelwiseError } from '../base/errors.js';
import { compareText, escapeControl } from '../base/text.js';
import {
  explain,
  formatKubernetes,
  formatSelector,
  overlap,
  parseSyntax,
  subsumes,
  SYNTAXES,
} from '../selector/index.js';
import type { Labels, Selector, SyntaxName, ValidationProfile } from '../selector/index.js';
import type { CliIO } from './io.js';
import { readLabels, readSelectorInputs, report, ReportedError, within } from './selector-input.js';
import type { Input, LabelFlags, SelectorIO } from './selector-input.js';
import { EXIT } from './io.js';
import { printJson, renderTable } from './output.js';
import { configureSubcommand, createProgram, repeatable, runProgram } from './program.js';
import { printMatch } from './selector-match.js';

interface SyntaxFlags {
  syntax: SyntaxName;
  profile?: ValidationProfile | 'none';
  json?: boolean;
  file: string[];
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
    .option(
      '--file <path>',
      "read a selector from this file ('-' for stdin) instead of an argument; repeat for two",
      repeatable,
      [] as string[],
    )
    .option('--json', 'print JSON on stdout');
}
/** Parses one selector input in the chosen syntax. */
function read(input: Input, flags: SyntaxFlags, io: CliIO): Selector {
  return within(input, flags.json === true, io, () =>
    parseSyntax(
      flags.syntax,
      input.text,
      flags.profile === undefined ? {} : { profile: flags.profile },
    ),
  );
}
/** Labels for JSON output, keys in code-point order. Prototype-free so `__proto__` stays a key. */
function labelsJson(labels: Labels): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const key of Object.keys(labels).sort(compareText)) out[key] = labels[key] as string;
  return out;
}

function showLabels(labels: Labels): string {
  const keys = Object.keys(labels).sort(compareText);
  // Witnesses repeat keys and values from the input: escaped, they cannot drive the terminal.
  return keys.length === 0
    ? '{} (no labels)'
    : escapeControl(keys.map((k) => `${k}=${labels[k]}`).join(','), true);
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

/** The selectors of one command, read and parsed; usage and input errors are reported. */
async function selectorsOf(
  args: readonly (string | undefined)[],
  flags: SyntaxFlags,
  count: number,
  io: SelectorIO,
  stdin: { used: boolean },
): Promise<Selector[]> {
  const inputs = await readSelectorInputs(args, flags.file, count, io, stdin).catch(
    (error: unknown) => {
      if (error instanceof LabelwiseError) report(error, undefined, flags.json === true, io);
      throw error;
    },
  );
  return inputs.map((input) => read(input, flags, io));
}

/** What every subcommand of one run shares: the io, whether stdin was consumed, the guard. */
interface Session {
  io: SelectorIO;
  stdin: { used: boolean };
  /** Wraps an action so a reported error sets the exit code instead of escaping. */
  guard: <A extends unknown[]>(action: (...a: A) => Promise<void>) => (...a: A) => Promise<void>;
}

function sessionOf(io: SelectorIO, exit: { code: number }): Session {
  return {
    io,
    stdin: { used: false },
    guard:
      (action) =>
      async (...a) => {
        try {
          await action(...a);
        } catch (error) {
          if (error instanceof ReportedError) exit.code = error.exitCode;
          else throw error;
        }
      },
  };
}

function printParse(
  selector: Selector,
  flags: { json?: boolean; print?: string },
  io: CliIO,
): void {
  const canonical = formatSelector(selector);
  const kubernetes = flags.print === 'kubernetes';
  if (flags.json) {
    printJson(io, {
      canonical,
      ...(kubernetes ? { kubernetes: formatKubernetes(selector) } : {}),
      requirements: requirementsJson(selector),
    });
    return;
  }
  if (kubernetes) io.stdout(`${escapeControl(formatKubernetes(selector), true)}\n`);
  else
    io.stdout(
      `${canonical === '' ? '(everything: no requirements)' : escapeControl(canonical, true)}\n`,
    );
  if (selector.requirements.length > 0) {
    const rows = selector.requirements.map((r) => [
      escapeControl(r.key, true),
      r.operator,
      r.values.map((v) => JSON.stringify(v)).join(' '),
    ]);
    io.stdout(renderTable([['KEY', 'OPERATOR', 'VALUES'], ...rows]));
  }
}

function parseCommand(program: Command, { io, stdin, guard }: Session): void {
  syntaxOptions(
    configureSubcommand(program.command('parse'), io)
      .description('parse a selector and print its canonical Kubernetes form and requirements')
      .argument('[expr]', "the selector ('-' reads stdin; or give --file)")
      .addOption(
        new Option(
          '--print <form>',
          "the form printed first: labelwise's canonical form, or kubernetes (apimachinery's String(), byte for byte)",
        ).choices(['canonical', 'kubernetes']),
      )
      .addHelpText(
        'after',
        "\nExamples:\n  labelwise selector parse 'tier in (web,api),!canary'\n  labelwise selector parse 'anchord.role=ldap' --syntax equality --json\n  labelwise selector parse 'x==a,y in (b)' --print kubernetes\n  labelwise selector parse --file selector.txt\n  echo 'app=web' | labelwise selector parse -",
      ),
  ).action(
    guard(async (expr: string | undefined, flags: SyntaxFlags & { print?: string }) => {
      const [selector] = (await selectorsOf([expr], flags, 1, io, stdin)) as [Selector];
      printParse(selector, flags, io);
    }),
  );
}

function matchCommand(program: Command, { io, stdin, guard }: Session): void {
  syntaxOptions(
    configureSubcommand(program.command('match'), io)
      .description('test a selector against a label set')
      .argument('[expr]', "the selector ('-' reads stdin; or give --file)")
      .option('--labels <list>', "the label set as 'k=v,k2=v2' (split at the first '=')")
      .option('--labels-json <object>', 'the label set as a JSON object')
      .option(
        '--labels-file <path>',
        "the label set from a file ('-' for stdin): k=v items, one per line or comma-separated",
      )
      .option(
        '--labels-json-file <path>',
        "the label set from a file ('-' for stdin) holding a JSON object",
      )
      .option('--explain', 'show every requirement with its result and the actual value')
      .addHelpText(
        'after',
        "\nExample:\n  labelwise selector match 'tier in (web,api),!canary' --labels 'tier=web' --explain",
      ),
  ).action(
    guard(
      async (expr: string | undefined, flags: SyntaxFlags & LabelFlags & { explain?: boolean }) => {
        const [selector] = (await selectorsOf([expr], flags, 1, io, stdin)) as [Selector];
        const labels = await readLabels(flags, io, stdin).catch((error: unknown) => {
          if (error instanceof LabelwiseError) report(error, undefined, flags.json === true, io);
          throw error;
        });
        printMatch(explain(selector, labels), flags, io);
      },
    ),
  );
}

function overlapCommand(program: Command, { io, stdin, guard }: Session): void {
  syntaxOptions(
    configureSubcommand(program.command('overlap'), io)
      .description(
        'can one label set match both selectors? prints a witness or a proof of disjointness',
      )
      .argument('[a]', "first selector ('-' reads stdin)")
      .argument('[b]', 'second selector')
      .addHelpText('after', "\nExample:\n  labelwise selector overlap 'tier!=frontend' '!tier'"),
  ).action(
    guard(async (a: string | undefined, b: string | undefined, flags: SyntaxFlags) => {
      const [first, second] = (await selectorsOf([a, b], flags, 2, io, stdin)) as [
        Selector,
        Selector,
      ];
      const result = overlap(first, second);
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
      else io.stdout(`disjoint: ${escapeControl(result.proof.reason, true)}\n`);
    }),
  );
}

function subsumesCommand(program: Command, { io, stdin, guard }: Session): void {
  syntaxOptions(
    configureSubcommand(program.command('subsumes'), io)
      .description('does A match every label set B matches? prints a counterexample when not')
      .argument('[a]', "the wider selector ('-' reads stdin)")
      .argument('[b]', 'the narrower selector')
      .addHelpText('after', "\nExample:\n  labelwise selector subsumes 'env' 'env notin (dev)'"),
  ).action(
    guard(async (a: string | undefined, b: string | undefined, flags: SyntaxFlags) => {
      const [wide, narrow] = (await selectorsOf([a, b], flags, 2, io, stdin)) as [
        Selector,
        Selector,
      ];
      const result = subsumes(wide, narrow);
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
}

export async function run(args: readonly string[], io: SelectorIO): Promise<number> {
  const exit: { code: number } = { code: EXIT.ok };
  const program = createProgram(
    'labelwise selector',
    'Parse, match, explain and compare label selectors.',
    io,
  );
  const session = sessionOf(io, exit);
  for (const register of [parseCommand, matchCommand, overlapCommand, subsumesCommand])
    register(program, session);
  program.addHelpText(
    'after',
    "\nExample:\n  labelwise selector match 'app=web,env!=dev' --labels 'app=web' --explain",
  );
  return runProgram(program, args, exit);
}

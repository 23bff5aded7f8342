/**
 * `labelwise schema [KIND]`: the JSON Schema of an input file kind, for yaml-language-server and
 * other editors. Each schema comes from what the loader of that kind validates with: the
 * catalog's two are the very files its ajv compiles, the others are made from the tables their
 * readers check against (see docs/install.md, "Schemas for editors").
 */
import { LabelwiseError } from '../base/index.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { printJson, renderTable } from './output.js';
import { createProgram, runProgram } from './program.js';

interface SchemaKind {
  readonly summary: string;
  /** Where the package ships it, relative to the package root. */
  readonly file: string;
  readonly load: () => Promise<object>;
}

/** Every kind, by the name `labelwise schema KIND` takes. Modules load only when asked for. */
export const SCHEMA_KINDS: Readonly<Record<string, SchemaKind>> = {
  servicedefinition: {
    summary: 'a ServiceDefinition of the catalog (catalog/*.yaml)',
    file: 'catalog/servicedefinition.schema.json',
    load: async () =>
      (await import('../catalog/index.js')).readCatalogSchema('servicedefinition.schema.json'),
  },
  platform: {
    summary: "the catalog's platform.yaml",
    file: 'catalog/platform.schema.json',
    load: async () =>
      (await import('../catalog/index.js')).readCatalogSchema('platform.schema.json'),
  },
  datum: {
    summary: 'a Datum document of a fleet (Fleet, Host, Layer, resources)',
    file: 'schemas/datum.schema.json',
    load: async () => (await import('../fleet/index.js')).datumDocumentSchema(),
  },
  'labelwise-yaml': {
    summary: 'labelwise.yaml at the repository root',
    file: 'schemas/labelwise-yaml.schema.json',
    load: async () => (await import('../repo/index.js')).repoConfigSchema(),
  },
  'policy-extension': {
    summary: 'the policy extension kinds (HttpRouteGroup, HttpRouteBinding, …)',
    file: 'schemas/policy-extension.schema.json',
    load: async () => (await import('../policy/index.js')).policyExtensionSchema(),
  },
};

const NAMES = Object.keys(SCHEMA_KINDS);

function listing(io: CliIO, json: boolean): void {
  if (json) {
    printJson(io, {
      kinds: NAMES.map((name) => ({
        kind: name,
        summary: SCHEMA_KINDS[name]?.summary,
        file: SCHEMA_KINDS[name]?.file,
      })),
    });
    return;
  }
  const rows = [['KIND', 'FILE IN THE PACKAGE', 'FOR']];
  for (const name of NAMES) {
    const kind = SCHEMA_KINDS[name] as SchemaKind;
    rows.push([name, kind.file, kind.summary]);
  }
  io.stdout(`${renderTable(rows)}\n`);
}

export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const exit: { code: number } = { code: EXIT.ok };
  const program = createProgram(
    'labelwise schema',
    'Print the JSON Schema of an input file kind (for yaml-language-server and other editors), or list the kinds.',
    io,
  );
  program
    .argument('[kind]', `one of ${NAMES.join(', ')}; without it, the list`)
    .option('--json', 'list the kinds as JSON (a schema is always printed as JSON)')
    .addHelpText(
      'after',
      '\nIn a YAML file, point yaml-language-server at the shipped file:\n  # yaml-language-server: $schema=../node_modules/labelwise/schemas/datum.schema.json\n\nExamples:\n  labelwise schema\n  labelwise schema datum > datum.schema.json',
    )
    .action(async (name: string | undefined, flags: { json?: boolean }) => {
      if (name === undefined) return listing(io, flags.json === true);
      const kind = Object.prototype.hasOwnProperty.call(SCHEMA_KINDS, name)
        ? SCHEMA_KINDS[name]
        : undefined;
      if (kind === undefined)
        throw new LabelwiseError('CLI_USAGE', `unknown schema kind ${JSON.stringify(name)}`, {
          hint: `use one of ${NAMES.join(', ')}`,
        });
      printJson(io, await kind.load());
    });
  return runProgram(program, args, exit);
}

/**
 * One entry point for every text syntax, as the CLI's `--syntax` flag names them.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { LabelwiseError } from '../../base/errors.js';
import type { Selector } from '../model.js';
import { parseDockerFilterText } from './docker-filters.js';
import { parseEqualityList } from './equality.js';
import { parseSelector } from './k8s.js';
import type { ParseOptions } from './k8s.js';
import { fromMatchBlock } from './match-block.js';

export type SyntaxName = 'k8s' | 'equality' | 'docker' | 'match';
export const SYNTAXES: readonly SyntaxName[] = Object.freeze([
  'k8s',
  'equality',
  'docker',
  'match',
]);

// yaml takes longer to load than the rest of the selector core together, and only `match` text
// needs it: it loads on first use, so `labelwise selector match` starts fast (cli/main.ts).
const requireModule = createRequire(import.meta.url);
let yaml: typeof Yaml | undefined;
function parseYaml(
  text: string,
  options: Yaml.ParseOptions & Yaml.DocumentOptions & Yaml.SchemaOptions & Yaml.ToJSOptions,
): unknown {
  yaml ??= requireModule('yaml') as typeof Yaml;
  return yaml.parse(text, options);
}

/**
 * Parses `text` in the named syntax. `k8s` validates with the `kubernetes` profile unless told
 * otherwise; `match` takes a Datum match block as YAML or JSON text, every scalar read as its
 * literal text. Throws the first problem as a LabelwiseError.
 */
export function parseSyntax(
  syntax: SyntaxName,
  text: string,
  options: ParseOptions = {},
): Selector {
  switch (syntax) {
    case 'k8s':
      return parseSelector(text, options);
    case 'equality':
      return parseEqualityList(text);
    case 'docker':
      return parseDockerFilterText(text);
    case 'match': {
      let block: unknown;
      try {
        // The failsafe schema keeps every scalar as its text: `1` stays "1", `yes` stays "yes".
        block = parseYaml(text, { schema: 'failsafe', uniqueKeys: true, maxAliasCount: 0 });
      } catch (error) {
        throw new LabelwiseError(
          'SELECTOR_INVALID_MATCH',
          `match block is not valid YAML: ${(error as Error).message.split('\n')[0]?.replace(/:$/, '')}`,
        );
      }
      if (block === '') block = null;
      const result = fromMatchBlock(block, {
        profile: options.profile ?? 'datum',
      });
      if (result.selector === undefined) throw result.errors[0];
      return result.selector;
    }
  }
}

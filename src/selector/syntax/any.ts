/**
 * One entry point for every text syntax, as the CLI's `--syntax` flag names them.
 */
import { LabelwiseError } from '../../base/errors.js';
import { failsafeValue } from '../../base/yaml-text.js';
import { parseYamlDocument } from '../../base/yaml.js';
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
      const result = fromMatchBlock(matchBlockOf(text), {
        profile: options.profile ?? 'datum',
      });
      if (result.selector === undefined) throw result.errors[0];
      return result.selector;
    }
  }
}

/**
 * The match block `text` holds, every scalar as its literal text (a label value is text: `1.0`
 * stays "1.0"). Aliases are refused: a block is a few lines. Throws the first YAML problem.
 */
function matchBlockOf(text: string): unknown {
  const { document, diagnostics } = parseYamlDocument(text, {
    file: '<match>',
    code: 'SELECTOR_INVALID_MATCH',
    maxAliasCount: 0,
  });
  const problem = diagnostics[0];
  if (problem !== undefined)
    throw new LabelwiseError(
      'SELECTOR_INVALID_MATCH',
      `match block is not valid YAML: ${problem.message}${problem.line === undefined || !text.includes('\n') ? '' : ` (line ${problem.line})`}`,
    );
  const block = failsafeValue(document);
  // A bare empty scalar (`""`) is no block, as an empty text is.
  return block === '' ? null : block;
}

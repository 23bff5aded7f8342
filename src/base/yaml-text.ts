/**
 * A parsed YAML document as plain data in which every scalar is its text, as YAML's failsafe
 * schema reads it: `1.0` stays `"1.0"`, `0x1` stays `"0x1"`, `null` and `~` stay strings. Inputs
 * whose values are label values (a match block given on the command line) need this: a label
 * value is text, and the core schema would turn `1.0` into `"1"`.
 */
import { yamlLibrary } from './yaml-library.js';
import type { Node as YamlNode } from 'yaml';
import type { YamlDocument } from './yaml.js';

function textOf(node: unknown): unknown {
  if (node === null || node === undefined) return '';
  if (yamlLibrary().isScalar(node)) return node.source ?? String(node.value ?? '');
  if (yamlLibrary().isSeq(node)) return node.items.map(textOf);
  if (yamlLibrary().isMap(node)) {
    // Keys come from the input: a prototype-free object keeps `__proto__` an ordinary key.
    const out: Record<string, unknown> = Object.create(null);
    for (const item of node.items) {
      if (!yamlLibrary().isPair(item)) continue;
      out[String(textOf(item.key))] = textOf(item.value);
    }
    return out;
  }
  // Aliases are refused by the reader's alias limit before a document gets here.
  if (yamlLibrary().isAlias(node)) throw new Error('failsafeValue: an alias reached the converter');
  throw new Error(`failsafeValue: unexpected YAML node ${String((node as YamlNode).constructor)}`);
}

/**
 * The document's value with every scalar as its source text; `null` for an empty document.
 * Parse with `maxAliasCount: 0`: aliases would stand for a value, not a text.
 */
export function failsafeValue(document: YamlDocument | undefined): unknown {
  const contents = document?.ast.contents;
  return contents === null || contents === undefined ? null : textOf(contents);
}

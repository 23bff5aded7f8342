/**
 * Manifest YAML out: plain data (JSON-like mappings, lists, strings, numbers, booleans, null) as
 * block-style YAML 1.1, byte for byte what the yaml library's `stringify` writes with
 * {@link MANIFEST_YAML_OPTIONS}, several times faster. The library builds a node tree and
 * renders it through a general stringifier (comments, anchors, folding, flow style); manifests
 * need none of it, and rendering a large catalog spent most of its time there.
 *
 * The writer does only what it can do exactly and hands the rest to the library, a whole
 * document at a time: multi-line strings (block scalars), control characters (escapes), strings
 * that begin like a document marker (`---`, `...`), keys over 1,024 characters (explicit keys),
 * non-finite numbers and anything not plain data (class instances, Maps, Dates, `toJSON`).
 * Whether a string may stay plain is decided with the library's own rules: its indicator
 * patterns and the YAML 1.1 schema's tag patterns, taken from the schema the library uses.
 */
import { yamlLibrary } from './yaml-library.js';
import type { CreateNodeOptions, DocumentOptions, SchemaOptions, ToStringOptions } from 'yaml';

/**
 * The manifest options: no line folding, no anchors, block style, two-space indent, sequences
 * indented under their key. YAML 1.1, so every scalar a 1.1 reader would take for something else
 * (`no`, `on`, `y`, `1_000`) is quoted.
 */
export const MANIFEST_YAML_OPTIONS: DocumentOptions &
  SchemaOptions &
  CreateNodeOptions &
  ToStringOptions = Object.freeze({
  version: '1.1',
  aliasDuplicateObjects: false,
  lineWidth: 0,
  minContentWidth: 0,
  indent: 2,
  indentSeq: true,
});

/** Thrown inside the writer for a value it leaves to the library. */
class Unsupported extends Error {}
const UNSUPPORTED = new Unsupported('left to the yaml library');

/** The library's test for characters it writes as escapes in a double-quoted string. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
/** The library's test for a string that cannot be plain (an indicator, `: `, ` #`, …). */
const INDICATORS =
  /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
/** A string starting like a document marker: the library writes it by position. */
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;
/** Keys longer than this are written as explicit keys (`? key`). */
const MAX_IMPLICIT_KEY = 1024;
const STRING_TAG = 'tag:yaml.org,2002:str';

/** What the writer needs of the library's schema, read once. */
interface SchemaRules {
  /** Patterns of the non-string default tags: a plain string matching one is quoted. */
  readonly patterns: readonly RegExp[];
  /** Other tags that claim some strings (the merge key `<<`): those are left to the library. */
  readonly claims: readonly ((value: unknown) => boolean)[];
}

let schemaRules: SchemaRules | undefined;

/**
 * The schema's rules for strings, from a document built with the manifest options, so they are
 * the ones `stringify` applies: the patterns of its non-string default tags (null, bool, int,
 * float, timestamp, merge), and the tags besides the string tag that identify a string.
 */
function rulesOfSchema(): SchemaRules {
  if (schemaRules !== undefined) return schemaRules;
  const schema = new (yamlLibrary().Document)(null, MANIFEST_YAML_OPTIONS).schema;
  const patterns: RegExp[] = [];
  const claims: ((value: unknown) => boolean)[] = [];
  for (const tag of [...schema.tags, ...(schema.compat ?? [])]) {
    if (tag.tag === STRING_TAG) continue;
    const { test, identify } = tag as { test?: unknown; identify?: unknown };
    if (tag.default && test instanceof RegExp) patterns.push(test);
    if (typeof identify === 'function') claims.push(identify as (value: unknown) => boolean);
  }
  schemaRules = { patterns, claims };
  return schemaRules;
}

/** A single-line string that cannot be plain, quoted as the library chooses. */
function quoted(value: string): string {
  // Single quotes only for a string with double quotes and no single quote; else JSON's form,
  // which is the library's double-quoted form for a single line without control characters.
  if (value.includes('"') && !value.includes("'")) return `'${value}'`;
  return JSON.stringify(value);
}

/** Whether `value` is a plain-data mapping (not a class instance, Map, Date, …). */
function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Writes documents; one writer may write many. It remembers how it wrote each string (manifests
 * repeat their keys and labels), so keep one for a batch and let it go with the batch.
 */
export class ManifestYamlWriter {
  private readonly strings = new Map<string, string>();
  private readonly rules = rulesOfSchema();
  /**
   * The document being written, in pieces. Joined once at the end: a string grown by `+=` is a
   * tree of pieces, and keeping thousands of those (a catalog's files) costs more in garbage
   * collection than writing them.
   */
  private parts: string[] = [];
  /** Documents handed to the library (for tests). */
  fallbacks = 0;

  /** `value` as one YAML document, ending in a newline. */
  write(value: unknown): string {
    if (value !== null && typeof value === 'object') {
      this.parts = [];
      try {
        this.node(value, '');
        this.parts.push('\n');
        return this.parts.join('');
      } catch (error) {
        if (!(error instanceof Unsupported)) throw error;
      } finally {
        this.parts = [];
      }
    }
    this.fallbacks++;
    return yamlLibrary().stringify(value, MANIFEST_YAML_OPTIONS);
  }

  /**
   * A string as a scalar. A key and a value are written alike on one line; only a key may be too
   * long for its position.
   */
  private scalar(value: string, key: boolean): string {
    let text = this.strings.get(value);
    if (text === undefined) {
      if (CONTROL.test(value) || value.includes('\n')) throw UNSUPPORTED;
      if (this.rules.claims.some((claims) => claims(value))) throw UNSUPPORTED;
      if (value === '' || INDICATORS.test(value)) text = quoted(value);
      else if (DOCUMENT_MARKER.test(value)) throw UNSUPPORTED;
      else text = this.rules.patterns.some((p) => p.test(value)) ? quoted(value) : value;
      this.strings.set(value, text);
    }
    if (key && text.length > MAX_IMPLICIT_KEY) throw UNSUPPORTED;
    return text;
  }

  /** Writes any value at `indent` (the indentation of the lines after its first). */
  private node(value: unknown, indent: string): void {
    switch (typeof value) {
      case 'string':
        this.parts.push(this.scalar(value, false));
        return;
      case 'number':
        if (!Number.isFinite(value)) throw UNSUPPORTED;
        this.parts.push(Object.is(value, -0) ? '-0' : JSON.stringify(value));
        return;
      case 'boolean':
        this.parts.push(value ? 'true' : 'false');
        return;
      case 'object':
        if (value === null) this.parts.push('null');
        else if (Array.isArray(value)) this.sequence(value, indent);
        else if (isPlainObject(value) && typeof value.toJSON !== 'function')
          this.mapping(value, indent);
        else throw UNSUPPORTED;
        return;
      default:
        throw UNSUPPORTED;
    }
  }

  private sequence(items: readonly unknown[], indent: string): void {
    if (items.length === 0) {
      this.parts.push('[]');
      return;
    }
    const inner = `${indent}  `;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      // The library writes an undefined item as null; a hole the same.
      if (item === undefined) throw UNSUPPORTED;
      this.parts.push(i === 0 ? '- ' : `\n${indent}- `);
      this.node(item, inner);
    }
  }

  private mapping(object: Record<string, unknown>, indent: string): void {
    const inner = `${indent}  `;
    let first = true;
    for (const key of Object.keys(object)) {
      const item = object[key];
      if (item === undefined) continue; // the library leaves undefined values out
      if (!first) this.parts.push(`\n${indent}`);
      // A collection with items starts on the next line; an empty one is `[]` or `{}` in place.
      this.parts.push(this.scalar(key, true), hasItems(item) ? `:\n${inner}` : ': ');
      this.node(item, inner);
      first = false;
    }
    if (first) this.parts.push('{}');
  }
}

/** A list with an item or a mapping with a defined value: written below its key. */
function hasItems(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.length > 0;
  for (const key in value)
    if (Object.hasOwn(value, key) && (value as Record<string, unknown>)[key] !== undefined)
      return true;
  return false;
}

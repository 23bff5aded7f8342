/**
 * One YAML document → a typed fleet document, collecting every problem with its line. Header
 * rules first (`datum`, `type`, `name`, no unknown top-level keys), then the rules of the type.
 * A document with any error is returned as undefined so it never reaches resolution half-read.
 */
import type { Code } from '../../base/codes.js';
import {
  fromMatchBlock,
  labelsFrom,
  validateLabels,
  EVERYTHING,
  NOTHING,
} from '../../selector/index.js';
import type { Selector } from '../../selector/index.js';
import { DOCUMENT_TYPES, EDGE_KINDS, RESOURCE_TYPES } from '../model.js';
import type { DesiredField, DocumentType, EdgeKind, EdgeRef, ResourceType } from '../model.js';
import { excludePatternProblem } from './exclude-globs.js';
import { RESOURCE_SPECS } from './resource-fields.js';
import { NAME_RULE, isValidName, parseRef } from './text-rules.js';
import { readField } from './read-field.js';
import { isNullScalar } from './yaml-tree.js';
import { linesByPath, toPlain } from './yaml-values.js';
import type { YamlMap, YamlValue } from './yaml-tree.js';
import type { YamlDocument } from './yaml-values.js';

export const SCHEMA_VERSION = 'v1alpha1';

/** A problem inside one document: its line and message (the file is added by the caller). */
export interface DocProblem {
  readonly code: Code;
  readonly line: number;
  readonly message: string;
  readonly severity?: 'error' | 'warning';
}

export type ParsedDoc =
  | {
      readonly type: 'Fleet';
      readonly name: string;
      readonly line: number;
      readonly exclude: readonly string[];
    }
  | {
      readonly type: 'Host';
      readonly name: string;
      readonly line: number;
      readonly labels: Readonly<Record<string, string>>;
    }
  | {
      readonly type: 'Layer';
      readonly name: string;
      readonly line: number;
      readonly precedence: number;
      readonly selector: Selector;
      readonly matchLines: Readonly<Record<string, number>>;
      /** Set when the Layer document had errors: it applies to no host. */
      readonly invalid?: boolean;
    }
  | {
      readonly type: ResourceType;
      readonly name: string;
      readonly line: number;
      readonly desired: ReadonlyMap<string, DesiredField>;
      readonly edges: Readonly<Record<EdgeKind, readonly EdgeRef[]>>;
      readonly templated: boolean;
    };

export interface ParseResult {
  /** Undefined when the document had errors. */
  readonly doc: ParsedDoc | undefined;
  /** Type and name as far as they could be read, for duplicate checks and messages. */
  readonly type: DocumentType | undefined;
  readonly name: string | undefined;
  readonly problems: readonly DocProblem[];
}

/** The fields each document type may have besides the header; the JSON Schema is made from it. */
export const TOP_LEVEL: Readonly<Record<DocumentType, readonly string[]>> = (() => {
  const out: Record<string, readonly string[]> = {
    Fleet: ['exclude'],
    Host: ['labels'],
    Layer: ['precedence', 'match'],
  };
  for (const type of RESOURCE_TYPES) out[type] = ['requires', 'restartOn', 'reloadOn', 'desired'];
  return out as Record<DocumentType, readonly string[]>;
})();

export const HEADER = ['datum', 'type', 'name'];

/** Reads one document. Never throws. */
export function parseDocument(document: YamlDocument): ParseResult {
  const problems: DocProblem[] = [];
  const fail = (line: number, message: string, code: Code = 'FLEET_INVALID_DOCUMENT'): void => {
    problems.push({ code, line, message });
  };
  const root = document.value;
  if (root.kind !== 'map') {
    fail(document.line, 'document is not a mapping');
    return { doc: undefined, type: undefined, name: undefined, problems };
  }
  const datum = root.entries.get('datum');
  if (datum === undefined) fail(root.line, 'missing datum', 'FLEET_MISSING_FIELD');
  else if (datum.value.kind !== 'scalar' || datum.value.text !== SCHEMA_VERSION)
    fail(
      datum.line,
      `unsupported schema version ${JSON.stringify(scalarOrShape(datum.value))}, expected ${SCHEMA_VERSION}`,
      'FLEET_UNSUPPORTED_VERSION',
    );

  const typeEntry = root.entries.get('type');
  let type: DocumentType | undefined;
  if (typeEntry === undefined) fail(root.line, 'missing type', 'FLEET_MISSING_FIELD');
  else if (
    typeEntry.value.kind !== 'scalar' ||
    !(DOCUMENT_TYPES as readonly string[]).includes(typeEntry.value.text)
  )
    fail(
      typeEntry.line,
      `unrecognised type ${JSON.stringify(scalarOrShape(typeEntry.value))}`,
      'FLEET_UNKNOWN_TYPE',
    );
  else type = typeEntry.value.text as DocumentType;

  const nameEntry = root.entries.get('name');
  let name: string | undefined;
  if (nameEntry === undefined) fail(root.line, 'missing name', 'FLEET_MISSING_FIELD');
  else if (nameEntry.value.kind !== 'scalar' || !isValidName(nameEntry.value.text))
    fail(
      nameEntry.line,
      `invalid name ${JSON.stringify(scalarOrShape(nameEntry.value))}: use ${NAME_RULE}`,
      'FLEET_INVALID_NAME',
    );
  else name = nameEntry.value.text;

  if (type === undefined) return { doc: undefined, type, name, problems };
  const allowed = TOP_LEVEL[type];
  for (const [key, entry] of root.entries) {
    if (!HEADER.includes(key) && !allowed.includes(key))
      fail(entry.line, `${type} has no field ${JSON.stringify(key)}`, 'FLEET_UNKNOWN_FIELD');
  }
  const line = root.line;
  let doc: ParsedDoc | undefined;
  switch (type) {
    case 'Fleet':
      doc = { type, name: name ?? '', line, exclude: readExclude(root, fail) };
      break;
    case 'Host':
      doc = { type, name: name ?? '', line, labels: readHostLabels(root, fail) };
      break;
    case 'Layer':
      doc = readLayer(root, name ?? '', line, problems, fail);
      break;
    default:
      doc = readResource(type, root, name ?? '', line, fail);
  }
  const failed = problems.some((p) => p.severity !== 'warning');
  // A broken Layer still owns its directory (so its resources do not all report "no Layer
  // above it"), but it never applies to any host.
  return {
    doc: !failed
      ? doc
      : doc?.type === 'Layer' && name !== undefined
        ? { ...doc, selector: NOTHING, invalid: true }
        : undefined,
    type,
    name,
    problems,
  };
}

function scalarOrShape(value: YamlValue): string {
  return value.kind === 'scalar' ? value.text : `<${value.kind}>`;
}

type Fail = (line: number, message: string, code?: Code) => void;

/**
 * The usable `exclude` globs of a Fleet document, even when the document has other errors: a
 * misspelt `name` must not bring back every problem of the excluded drafts as well.
 */
export function fleetExclude(document: YamlDocument): string[] {
  return document.value.kind === 'map' ? readExclude(document.value, () => undefined) : [];
}

function readExclude(root: YamlMap, fail: Fail): string[] {
  const entry = root.entries.get('exclude');
  if (entry === undefined || isNullScalar(entry.value)) return [];
  if (entry.value.kind !== 'list') {
    fail(entry.line, 'exclude must be a list of glob patterns', 'FLEET_INVALID_FIELD');
    return [];
  }
  const out: string[] = [];
  for (const item of entry.value.items) {
    const problem = item.kind === 'scalar' ? excludePatternProblem(item.text) : undefined;
    if (item.kind !== 'scalar' || item.text === '')
      fail(item.line, 'exclude entries must be glob patterns', 'FLEET_INVALID_FIELD');
    else if (problem !== undefined)
      fail(
        item.line,
        `exclude pattern ${JSON.stringify(item.text)} ${problem}`,
        'FLEET_INVALID_FIELD',
      );
    else out.push(item.text);
  }
  return out;
}

function readHostLabels(root: YamlMap, fail: Fail): Readonly<Record<string, string>> {
  const entry = root.entries.get('labels');
  if (entry === undefined || isNullScalar(entry.value)) return labelsFrom([]);
  if (entry.value.kind !== 'map') {
    fail(entry.line, 'labels must be a mapping of label keys to values', 'FLEET_INVALID_FIELD');
    return labelsFrom([]);
  }
  const pairs: [string, string][] = [];
  const lines = new Map<string, number>();
  for (const [key, item] of entry.value.entries) {
    lines.set(key, item.line);
    if (item.value.kind !== 'scalar' || isNullScalar(item.value)) {
      fail(
        item.line,
        `label ${JSON.stringify(key)} must have a text value (labels are never empty, lists or maps)`,
        'FLEET_INVALID_LABEL',
      );
      continue;
    }
    pairs.push([key, item.value.text]);
  }
  const labels = labelsFrom(pairs);
  for (const error of validateLabels(labels, 'datum')) {
    const key = error.source.label ?? '';
    fail(
      lines.get(key) ?? entry.line,
      labelProblem(key, error.message),
      error.code === 'SELECTOR_RESERVED_LABEL' ? 'FLEET_RESERVED_LABEL' : 'FLEET_INVALID_LABEL',
    );
  }
  return labels;
}

/**
 * A Host label problem that names the label once. The selector core's messages already name
 * what they are about (`label "datum/x" uses …`, `key "a/b/c" may …`, `value "x y" must …`), so
 * only a value problem needs the label's key in front of it.
 */
function labelProblem(key: string, message: string): string {
  if (message.startsWith('label ')) return message;
  if (message.startsWith('key ')) return `label ${message}`;
  return `label ${JSON.stringify(key)}: ${message}`;
}

function readLayer(
  root: YamlMap,
  name: string,
  line: number,
  problems: DocProblem[],
  fail: Fail,
): ParsedDoc {
  let precedence = 0;
  const prec = root.entries.get('precedence');
  if (prec !== undefined) {
    const value = prec.value;
    if (
      value.kind === 'scalar' &&
      !value.quoted &&
      /^[-+]?[0-9]+$/.test(value.text) &&
      Number.isSafeInteger(Number(value.text))
    )
      precedence = Number(value.text);
    else if (value.kind === 'scalar' && !value.quoted && /^[-+]?[0-9]+$/.test(value.text))
      fail(
        prec.line,
        `precedence ${value.text} is out of range; use an integer between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
        'FLEET_INVALID_PRECEDENCE',
      );
    else
      fail(
        prec.line,
        `precedence must be an integer, got ${value.kind === 'scalar' ? (value.quoted ? JSON.stringify(value.text) : value.text === '' ? 'nothing' : value.text) : value.kind === 'map' ? 'a mapping' : 'a list'}`,
        'FLEET_INVALID_PRECEDENCE',
      );
  }
  let selector: Selector = EVERYTHING;
  let matchLines: Record<string, number> = Object.create(null);
  const match = root.entries.get('match');
  if (match !== undefined && !isNullScalar(match.value)) {
    matchLines = linesByPath(match.value, 'match');
    matchLines.match = match.line;
    const result = fromMatchBlock(toPlain(match.value), { path: 'match', profile: 'datum' });
    const lineFor = (path: string | undefined): number => {
      for (let p = path ?? 'match'; p !== ''; p = p.replace(/(\.[^.]*|\[\d+\])$/, '')) {
        const found = matchLines[p];
        if (found !== undefined) return found;
        if (!/[.[]/.test(p)) break;
      }
      return match.line;
    };
    for (const error of result.errors)
      fail(lineFor(error.source.path), error.message, 'FLEET_INVALID_MATCH');
    for (const warning of result.warnings)
      problems.push({
        code: 'FLEET_MATCH_WARNING',
        line: lineFor(warning.source.path),
        message: warning.message,
        severity: 'warning',
      });
    if (result.selector !== undefined) selector = result.selector;
  }
  return { type: 'Layer', name, line, precedence, selector, matchLines };
}

function readResource(
  type: ResourceType,
  root: YamlMap,
  name: string,
  line: number,
  fail: Fail,
): ParsedDoc {
  const edges: Record<EdgeKind, EdgeRef[]> = { requires: [], restartOn: [], reloadOn: [] };
  for (const kind of EDGE_KINDS) {
    const entry = root.entries.get(kind);
    if (entry === undefined || isNullScalar(entry.value)) continue;
    if (entry.value.kind !== 'list') {
      fail(
        entry.line,
        `${kind} must be a list of references such as Package[nginx]`,
        'FLEET_INVALID_REFERENCE',
      );
      continue;
    }
    for (const item of entry.value.items) {
      const ref = item.kind === 'scalar' ? parseRef(item.text) : undefined;
      if (item.kind !== 'scalar' || ref === undefined) {
        fail(
          item.line,
          `${kind} entries must be references such as Package[nginx], got ${JSON.stringify(scalarOrShape(item))}`,
          'FLEET_INVALID_REFERENCE',
        );
      } else if (!(RESOURCE_TYPES as readonly string[]).includes(ref.type)) {
        fail(
          item.line,
          `${kind} names unrecognised type ${JSON.stringify(ref.type)}`,
          'FLEET_INVALID_REFERENCE',
        );
      } else if (!isValidName(ref.name)) {
        fail(
          item.line,
          `${kind} names invalid name ${JSON.stringify(ref.name)}: use ${NAME_RULE}`,
          'FLEET_INVALID_REFERENCE',
        );
      } else edges[kind].push({ ref: `${ref.type}[${ref.name}]`, line: item.line });
    }
  }
  const restartOn = root.entries.get('restartOn');
  const reloadOn = root.entries.get('reloadOn');
  if (restartOn !== undefined && reloadOn !== undefined)
    fail(
      Math.max(restartOn.line, reloadOn.line),
      'a resource may set restartOn or reloadOn, not both',
      'FLEET_RESTART_AND_RELOAD',
    );

  const desired = new Map<string, DesiredField>();
  let templated = false;
  const entry = root.entries.get('desired');
  if (entry === undefined) fail(line, `${type}[${name}] is missing desired`, 'FLEET_MISSING_FIELD');
  else if (entry.value.kind !== 'map')
    fail(entry.line, 'desired must be a mapping', 'FLEET_INVALID_FIELD');
  else {
    const spec = RESOURCE_SPECS[type];
    for (const [field, item] of entry.value.entries) {
      const kind = spec.fields[field];
      if (kind === undefined) {
        fail(
          item.line,
          `${type} desired has no field ${JSON.stringify(field)}`,
          'FLEET_UNKNOWN_FIELD',
        );
        continue;
      }
      const read = readField(kind, item.value);
      if (!read.ok) {
        fail(item.value.line, `${type}[${name}].${field} ${read.message}`, 'FLEET_INVALID_FIELD');
        continue;
      }
      if (read.templated) templated = true;
      desired.set(field, { value: read.value, line: item.line });
    }
  }
  return { type, name, line, desired, edges, templated };
}

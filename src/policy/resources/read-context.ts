/**
 * Typed field access over one YAML document with problem collection. Readers never throw on bad
 * input: each wrong field becomes a problem with file, line and path, and the reader returns
 * undefined so the caller can carry on and report everything at once.
 */
import { compareText } from '../../base/index.js';
import type { Code } from '../../base/codes.js';
import { labelsFrom } from '../../selector/index.js';
import type { Labels } from '../../selector/index.js';
import type { Location, ObjectMeta, PolicyProblem } from '../types.js';
import type { YamlDoc } from './yaml-docs.js';
import { formatPath } from './yaml-docs.js';

export type Path = readonly (string | number)[];

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads fields of one object document, collecting problems. */
export class ReadContext {
  readonly problems: PolicyProblem[] = [];
  object: string;

  constructor(
    readonly doc: YamlDoc,
    object: string,
  ) {
    this.object = object;
  }

  at(path: Path): Location {
    return { file: this.doc.file, line: this.doc.lineOf(path), path: formatPath(path) };
  }

  fail(code: Code, path: Path, message: string, hint?: string): undefined {
    const problem: PolicyProblem = {
      severity: 'error',
      code,
      object: this.object,
      file: this.doc.file,
      line: this.doc.lineOf(path),
      // The whole document has no path: leave it out rather than print an empty one.
      ...(path.length === 0 ? {} : { path: formatPath(path) }),
      message,
      ...(hint === undefined ? {} : { hint }),
    };
    this.problems.push(problem);
    return undefined;
  }

  /**
   * Fails with `POLICY_UNKNOWN_FIELD` for every key of the mapping at `path` not in `allowed`:
   * the extension's schemas are strict, so a misspelt field is an error, never silently dropped.
   */
  onlyFields(path: Path, allowed: readonly string[], what: string): void {
    const value = this.get(path);
    if (!isRecord(value)) return;
    for (const key of Object.keys(value))
      if (!allowed.includes(key))
        this.fail(
          'POLICY_UNKNOWN_FIELD',
          [...path, key],
          `${JSON.stringify(key)} is not a field of ${what}`,
          `fields: ${allowed.join(', ')}`,
        );
  }

  get(path: Path): unknown {
    let value: unknown = this.doc.value;
    for (const part of path) {
      if (typeof part === 'number') {
        if (!Array.isArray(value)) return undefined;
        value = value[part];
      } else {
        if (!isRecord(value) || !Object.prototype.hasOwnProperty.call(value, part))
          return undefined;
        value = value[part];
      }
    }
    return value;
  }

  has(path: Path): boolean {
    const parent = this.get(path.slice(0, -1));
    const last = path[path.length - 1];
    return (
      isRecord(parent) &&
      typeof last === 'string' &&
      Object.prototype.hasOwnProperty.call(parent, last)
    );
  }

  string(path: Path, options: { required?: boolean; nonEmpty?: boolean } = {}): string | undefined {
    const value = this.get(path);
    if (value === undefined || value === null) {
      if (options.required)
        this.fail('POLICY_MISSING_FIELD', path, `${formatPath(path)} is required`);
      return undefined;
    }
    if (typeof value !== 'string') {
      return this.fail(
        'POLICY_INVALID_FIELD',
        path,
        `${formatPath(path)} must be a string, found ${describe(value)}`,
      );
    }
    if (options.nonEmpty && value === '')
      return this.fail('POLICY_INVALID_FIELD', path, `${formatPath(path)} must not be empty`);
    return value;
  }

  boolean(path: Path): boolean | undefined {
    const value = this.get(path);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean')
      return this.fail(
        'POLICY_INVALID_FIELD',
        path,
        `${formatPath(path)} must be true or false, found ${describe(value)}`,
      );
    return value;
  }

  list(path: Path, options: { required?: boolean } = {}): unknown[] | undefined {
    const value = this.get(path);
    if (value === undefined || value === null) {
      if (options.required)
        this.fail('POLICY_MISSING_FIELD', path, `${formatPath(path)} is required`);
      return undefined;
    }
    if (!Array.isArray(value))
      return this.fail(
        'POLICY_INVALID_FIELD',
        path,
        `${formatPath(path)} must be a list, found ${describe(value)}`,
      );
    return value;
  }

  record(path: Path, options: { required?: boolean } = {}): Record<string, unknown> | undefined {
    const value = this.get(path);
    if (value === undefined || value === null) {
      if (options.required)
        this.fail('POLICY_MISSING_FIELD', path, `${formatPath(path)} is required`);
      return undefined;
    }
    if (!isRecord(value))
      return this.fail(
        'POLICY_INVALID_FIELD',
        path,
        `${formatPath(path)} must be a mapping, found ${describe(value)}`,
      );
    return value;
  }

  /** A list of strings (each checked), or undefined when absent. */
  strings(path: Path): string[] | undefined {
    const list = this.list(path);
    if (list === undefined) return undefined;
    const out: string[] = [];
    list.forEach((_, i) => {
      const s = this.string([...path, i], { required: true });
      if (s !== undefined) out.push(s);
    });
    return out;
  }

  /** A mapping of strings to strings, prototype-free. */
  stringMap(path: Path): Labels {
    const record = this.record(path);
    const entries: [string, string][] = [];
    if (record !== undefined) {
      for (const key of Object.keys(record).sort(compareText)) {
        const value = record[key];
        if (typeof value !== 'string') {
          this.fail(
            'POLICY_INVALID_FIELD',
            [...path, key],
            `${formatPath([...path, key])} must be a string, found ${describe(value)}`,
            // YAML reads `8080`, `true` and `1.0` as a number or boolean; Kubernetes wants text.
            typeof value === 'number' || typeof value === 'boolean'
              ? `quote the value: ${JSON.stringify(String(value))}`
              : undefined,
          );
          continue;
        }
        entries.push([key, value]);
      }
    }
    return labelsFrom(entries);
  }

  /** `name`/`value` pairs (Gateway API header lists) as a prototype-free map. */
  namedValues(path: Path): Record<string, string> {
    const out: Record<string, string> = Object.create(null);
    (this.list(path) ?? []).forEach((_, i) => {
      const name = this.string([...path, i, 'name'], { required: true, nonEmpty: true });
      const value = this.string([...path, i, 'value'], { required: true });
      if (name !== undefined && value !== undefined) out[name.toLowerCase()] = value;
    });
    return out;
  }
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** The object name used in findings: `Kind ns/name`. */
export function objectName(meta: Pick<ObjectMeta, 'kind' | 'namespace' | 'name'>): string {
  return `${meta.kind} ${meta.namespace}/${meta.name}`;
}

/**
 * The one type for a problem or remark found in the user's input, with one text layout, one
 * order and one `--json` shape for every command (docs/errors.md). Modules produce diagnostics;
 * the CLI, `build`, `report.json` and `report.html` print them through the functions here.
 */
import { boundText } from './bounded.js';
import type { Code } from './codes.js';
import type { LabelwiseError } from './errors.js';
import { compareText, escapeControl } from './text.js';

export type Severity = 'error' | 'warning';

/** Why a finding is accepted, and who said so. */
export interface Acceptance {
  readonly reason: string;
  /** `annotation`: on the object (SARIF `inSource`); `config`: labelwise.yaml (`external`). */
  readonly by: 'annotation' | 'config';
}

/** One problem, located as precisely as the input allows. */
export interface Diagnostic {
  readonly severity: Severity;
  /** Stable `MODULE_UPPER_SNAKE` code, listed in docs/errors.md. Never renamed or reused. */
  readonly code: Code;
  readonly message: string;
  /** The obvious fix, where there is one. */
  readonly hint?: string;
  /** Which module found it: `fleet`, `catalog`, … (set by `build`, optional elsewhere). */
  readonly module?: string;
  /** What it is about: `host web-001`, `File[nginx-config]`, `Server books/books-http`. */
  readonly object?: string;
  /** Path relative to the repository root (or as the user named it), with `/`. */
  readonly file?: string;
  /** 1-based line and column in `file`. */
  readonly line?: number;
  readonly column?: number;
  /** JSON-style path inside the document, e.g. `spec.matchExpressions[1].operator`. */
  readonly path?: string;
  /** A concrete example that shows the problem (a label set, a request, a pod). */
  readonly witness?: unknown;
  /**
   * Set when the user marked the finding intended (see accepted.ts): it stays listed, with the
   * reason, and counts towards neither errors nor warnings.
   */
  readonly accepted?: Acceptance;
}

/** What every command's `--json` output carries: the list and its counts. */
export interface DiagnosticsJson {
  readonly diagnostics: readonly Diagnostic[];
  /** Errors and warnings not accepted. */
  readonly errors: number;
  readonly warnings: number;
  /** Findings marked intended; present only when there are any. */
  readonly accepted?: number;
}

const KEYS = [
  'severity',
  'code',
  'module',
  'object',
  'file',
  'line',
  'column',
  'path',
  'message',
  'hint',
  'witness',
  'accepted',
] as const;

/** Fields that echo input and are cut to a bounded length (`file` is a path, bounded by the OS). */
const BOUNDED: ReadonlySet<string> = new Set(['object', 'path', 'message', 'hint']);

/** A copy with keys in the documented order and no undefined fields (stable `--json` bytes). */
export function normalizeDiagnostic(d: Diagnostic): Diagnostic {
  const out: Record<string, unknown> = {};
  for (const key of KEYS) {
    const value = d[key];
    if (value === undefined) continue;
    out[key] = typeof value === 'string' && BOUNDED.has(key) ? boundText(value) : value;
  }
  return out as unknown as Diagnostic;
}

function compareOptional(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return compareText(a, b);
}

/**
 * The one order: by file, line, column, then code, object and message, all by code point.
 * Diagnostics without a file come first (they are about the whole input).
 */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return (
    compareOptional(a.file, b.file) ||
    (a.line ?? 0) - (b.line ?? 0) ||
    (a.column ?? 0) - (b.column ?? 0) ||
    compareText(a.code, b.code) ||
    compareOptional(a.object, b.object) ||
    compareText(a.message, b.message) ||
    compareOptional(a.module, b.module)
  );
}

/** Sorted into the one order, duplicates (same fields) dropped. Does not modify `list`. */
export function sortDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  const sorted = list.map(normalizeDiagnostic).sort(compareDiagnostics);
  const out: Diagnostic[] = [];
  let last = '';
  for (const d of sorted) {
    const key = JSON.stringify(d);
    if (key !== last) out.push(d);
    last = key;
  }
  return out;
}

export function countDiagnostics(list: readonly Diagnostic[]): {
  errors: number;
  warnings: number;
} {
  let errors = 0;
  let warnings = 0;
  for (const d of list) {
    if (d.accepted !== undefined) continue;
    if (d.severity === 'error') errors++;
    else warnings++;
  }
  return { errors, warnings };
}

/** The `--json` shape every command uses: sorted diagnostics and their counts. */
export function diagnosticsJson(list: readonly Diagnostic[]): DiagnosticsJson {
  const diagnostics = sortDiagnostics(list);
  const accepted = diagnostics.filter((d) => d.accepted !== undefined).length;
  return { diagnostics, ...countDiagnostics(diagnostics), ...(accepted > 0 ? { accepted } : {}) };
}

/** `file:line:col` (as much of it as is known), escaped for one line; '' when nothing is known. */
export function formatLocation(d: Pick<Diagnostic, 'file' | 'line' | 'column'>): string {
  if (d.file === undefined) return '';
  let out = escapeControl(d.file, true);
  if (d.line !== undefined) {
    out += `:${d.line}`;
    if (d.column !== undefined) out += `:${d.column}`;
  }
  return out;
}

/**
 * The one text layout: `file:line:col: severity CODE [object]: message`, then `  hint: …` on a
 * second line when there is a hint. Every field is escaped: input files cannot reach the terminal
 * with control characters.
 */
export function formatDiagnostic(d: Diagnostic): string {
  const location = formatLocation(d);
  const show = (text: string): string => escapeControl(boundText(text), true);
  const object = d.object === undefined ? '' : ` [${show(d.object)}]`;
  const path = d.path === undefined ? '' : ` (at ${show(d.path)})`;
  const accepted = d.accepted === undefined ? '' : 'accepted ';
  let out = `${location === '' ? '' : `${location}: `}${accepted}${d.severity} ${d.code}${object}: ${show(d.message)}${path}`;
  if (d.hint !== undefined) out += `\n  hint: ${show(d.hint)}`;
  if (d.accepted !== undefined)
    out += `\n  accepted (${d.accepted.by}): ${show(d.accepted.reason)}`;
  return out;
}

/** Every diagnostic in the one order and layout, one per line (hints on their own line). */
export function formatDiagnostics(list: readonly Diagnostic[]): string {
  return sortDiagnostics(list).map(formatDiagnostic).join('\n');
}

/** The diagnostic for a user-facing error that stopped a command. */
export function diagnosticFromError(error: LabelwiseError, module?: string): Diagnostic {
  const s = error.source;
  return normalizeDiagnostic({
    severity: 'error',
    code: error.code,
    message: error.message,
    hint: error.hint,
    module,
    object:
      s.env !== undefined ? `env ${s.env}` : s.label !== undefined ? `label ${s.label}` : undefined,
    file: s.file,
    line: s.line,
    // A one-line expression has an offset and no line: its column is the offset plus one.
    column: s.col ?? (s.offset !== undefined && s.line === undefined ? s.offset + 1 : undefined),
    path: s.path,
    witness: error.witness,
  });
}

/**
 * Diagnostics as a SARIF 2.1.0 log, for code-scanning tools (GitHub code scanning, GitLab, IDE
 * viewers). One run, one rule per code, one result per diagnostic with its file, line and
 * column. File paths are relative to the repository root (`%SRCROOT%`).
 */
import type { Log, ReportingDescriptor, Result } from 'sarif';
import type { Diagnostic } from '../diagnostic.js';
import { sortDiagnostics } from '../diagnostic.js';
import { compareText, escapeControl } from '../text.js';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

export interface SarifOptions {
  /** The tool's version (`labelwise --version`). */
  readonly version: string;
  /** The command that produced the diagnostics, for the run's invocation. */
  readonly command?: string;
}

/** The docs page whose error-code table lists `code`. */
function docsPage(d: Diagnostic): string {
  const module = d.module ?? d.code.split('_')[0]?.toLowerCase() ?? '';
  const page = ['selector', 'anchor', 'fleet', 'catalog', 'policy'].includes(module)
    ? module
    : 'errors';
  return `docs/${page}.md`;
}

/** A file path as a relative URI reference: each segment percent-encoded. */
function fileUri(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/**
 * Plain text for `message.text`: `[` and `]` escaped, since SARIF 2.1.0 §3.11.6 reads
 * `[text](target)` in a message as an embedded link, and invisible characters made visible.
 */
function plain(text: string): string {
  return escapeControl(text).replace(/[[\]]/g, (char) => `\\${char}`);
}

function result(d: Diagnostic, ruleIndex: number): Result {
  const text = plain(d.hint === undefined ? d.message : `${d.message}\nhint: ${d.hint}`);
  const out: Result = {
    ruleId: d.code,
    ruleIndex,
    level: d.severity === 'error' ? 'error' : 'warning',
    message: { text: d.object === undefined ? text : `\\[${plain(d.object)}\\] ${text}` },
  };
  if (d.file !== undefined) {
    out.locations = [
      {
        physicalLocation: {
          artifactLocation: { uri: fileUri(d.file), uriBaseId: '%SRCROOT%' },
          ...(d.line !== undefined
            ? {
                region: {
                  startLine: d.line,
                  ...(d.column !== undefined ? { startColumn: d.column } : {}),
                },
              }
            : {}),
        },
        ...(d.path !== undefined ? { logicalLocations: [{ fullyQualifiedName: d.path }] } : {}),
      },
    ];
  }
  if (d.accepted !== undefined)
    out.suppressions = [
      {
        kind: d.accepted.by === 'annotation' ? 'inSource' : 'external',
        status: 'accepted',
        justification: d.accepted.reason,
      },
    ];
  const properties: Record<string, unknown> = {};
  if (d.module !== undefined) properties.module = d.module;
  if (d.witness !== undefined) properties.witness = d.witness;
  if (Object.keys(properties).length > 0) out.properties = properties;
  return out;
}

/** The SARIF log for `diagnostics`, deterministic (sorted results, rules by code). */
export function toSarif(diagnostics: readonly Diagnostic[], options: SarifOptions): Log {
  const sorted = sortDiagnostics(diagnostics);
  const codes = [...new Set(sorted.map((d) => d.code))].sort(compareText);
  const rules: ReportingDescriptor[] = codes.map((code) => {
    const first = sorted.find((d) => d.code === code) as Diagnostic;
    return { id: code, help: { text: `See ${docsPage(first)}, section Error codes.` } };
  });
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'labelwise',
            version: options.version,
            rules,
          },
        },
        ...(options.command !== undefined
          ? { invocations: [{ commandLine: options.command, executionSuccessful: true }] }
          : {}),
        results: sorted.map((d) => result(d, codes.indexOf(d.code))),
      },
    ],
  };
}

/**
 * Diagnostics as JUnit XML, for CI systems that show test reports (GitLab, Jenkins, Azure): one
 * test suite per module, one failing test case per error (and per warning when warnings fail the
 * run), and a passing case when a module has nothing to report.
 */
import type { Diagnostic } from '../diagnostic.js';
import { formatLocation, sortDiagnostics } from '../diagnostic.js';
import { compareText, escapeControl } from '../text.js';

// Everything XML 1.0's `Char` production excludes: U+FFFE, U+FFFF and lone surrogates too.
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

function xml(text: string): string {
  // XML 1.0 cannot carry most control characters even escaped: make them visible first.
  return escapeControl(text)
    .replace(
      NOT_XML,
      (char) => `\\u${(char.codePointAt(0) as number).toString(16).padStart(4, '0')}`,
    )
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

export interface JunitOptions {
  /** The suite name prefix, e.g. `labelwise build`. */
  readonly name: string;
  /** Warnings become failures (as with `--fail-on warning`). */
  readonly warningsFail?: boolean;
}

export function toJunit(diagnostics: readonly Diagnostic[], options: JunitOptions): string {
  const sorted = sortDiagnostics(diagnostics);
  const groups = new Map<string, Diagnostic[]>();
  for (const d of sorted) {
    const key = d.module ?? d.code.split('_')[0]?.toLowerCase() ?? 'labelwise';
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  if (groups.size === 0) groups.set('labelwise', []);
  let failures = 0;
  const suites: string[] = [];
  for (const module of [...groups.keys()].sort(compareText)) {
    const list = groups.get(module) as Diagnostic[];
    const cases: string[] = [];
    let suiteFailures = 0;
    for (const d of list) {
      const where = formatLocation(d) || '(input)';
      const name = `${d.code}${d.object === undefined ? '' : ` ${d.object}`} at ${where}`;
      const fails = d.severity === 'error' || options.warningsFail === true;
      const body = `${d.message}${d.hint === undefined ? '' : `\nhint: ${d.hint}`}`;
      if (fails) {
        suiteFailures++;
        cases.push(
          `    <testcase classname="${xml(module)}" name="${xml(name)}">\n      <failure type="${d.severity}" message="${xml(d.message)}">${xml(body)}</failure>\n    </testcase>`,
        );
      } else
        cases.push(
          `    <testcase classname="${xml(module)}" name="${xml(name)}">\n      <system-out>${xml(`warning: ${body}`)}</system-out>\n    </testcase>`,
        );
    }
    if (cases.length === 0)
      cases.push(`    <testcase classname="${xml(module)}" name="no problems found"/>`);
    failures += suiteFailures;
    suites.push(
      `  <testsuite name="${xml(`${options.name} ${module}`)}" tests="${cases.length}" failures="${suiteFailures}" errors="0" skipped="0">\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  const tests = suites.reduce((n, s) => n + (s.match(/<testcase /g)?.length ?? 0), 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xml(options.name)}" tests="${tests}" failures="${failures}" errors="0">\n${suites.join('\n')}\n</testsuites>\n`;
}

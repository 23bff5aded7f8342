/**
 * `labelwise diff --format markdown`: sized for a pull-request comment. Each module is a section;
 * a section with many entries is collapsed (`<details>`), and the whole comment stays under a
 * size limit (GitHub takes 65,536 characters) by cutting the longest sections first, saying so.
 *
 * Nothing from the input is live: every input-derived string (names, paths, messages, probe
 * paths) is inside a code span its text cannot close, or a fenced block it cannot close. Escaping
 * with backslashes is not enough on GitHub, which links `@octocat`, `@org/team`, `user@host` and
 * bare `https://…` in rendered text; it renders none of them inside code.
 */
import { escapeControl, formatLocation, maxOf } from '../../base/index.js';
import type { Diagnostic } from '../../base/index.js';
import { checkedSentence } from './checked.js';
import { fieldLine, policyCounts } from './render-text.js';
import type { RepoDiff } from './model.js';

export const MARKDOWN_LIMIT = 60_000;
const COLLAPSE_AFTER = 10;

/**
 * An inline code span that the input cannot close: its fence is one backtick longer than the
 * longest run inside, and the padding spaces keep a leading or trailing backtick inside.
 */
export function code(text: string): string {
  const clean = escapeControl(text, true);
  const longest = maxOf(
    [...clean.matchAll(/`+/g)].map((m) => m[0].length),
    0,
  );
  const ticks = '`'.repeat(longest + 1);
  return `${ticks} ${clean === '' ? ' ' : clean} ${ticks}`;
}

/** A fenced block that the input cannot close. */
function fence(text: string, lang = ''): string {
  const clean = escapeControl(text);
  const longest = maxOf(
    [...clean.matchAll(/`{3,}/g)].map((m) => m[0].length),
    2,
  );
  const bar = '`'.repeat(longest + 1);
  return `${bar}${lang}\n${clean.trimEnd()}\n${bar}`;
}

function diagnosticLine(d: Diagnostic): string {
  const where = formatLocation(d);
  return `${d.severity === 'error' ? '❌' : '⚠️'} ${code(d.code)}${where === '' ? '' : ` ${code(where)}`} ${code(d.message)}`;
}

interface Section {
  readonly title: string;
  readonly lines: string[];
}

function render(sections: readonly Section[], header: string[]): string {
  const parts = [...header];
  for (const section of sections) {
    if (section.lines.length === 0) continue;
    const body = section.lines.join('\n');
    parts.push(
      section.lines.length > COLLAPSE_AFTER
        ? `<details><summary>${section.title}</summary>\n\n${body}\n\n</details>`
        : `#### ${section.title}\n\n${body}`,
    );
  }
  return `${parts.join('\n\n')}\n`;
}

function summaryLines(diff: RepoDiff): string {
  const summary = [
    `fleet: ${diff.fleet.changes.length} host(s)`,
    `catalog: ${diff.catalog.changes.length} manifest(s), ${diff.catalog.flows.length} flow(s), ${diff.catalog.hazards.length} hazard(s)`,
    `policy: ${policyCounts(diff)} from ${diff.policy.causes.length} cause(s)`,
    `anchors: ${diff.anchor.changes.length} claim(s)`,
    `diagnostics: ${diff.introduced.length} introduced, ${diff.resolved.length} resolved${diff.errors > 0 ? ` — **${diff.errors} error(s) after the change**` : ''}`,
  ];
  return summary.map((s) => `- ${s}`).join('\n');
}

function fleetSection(diff: RepoDiff): Section {
  return {
    title: `Fleet: ${diff.fleet.changes.length} host(s) changed`,
    lines: diff.fleet.changes.flatMap((h) => [
      `- ${code(h.host)} ${h.change}${h.layersAdded.length > 0 ? `, now reached by ${h.layersAdded.map(code).join(', ')}` : ''}${h.layersRemoved.length > 0 ? `, no longer by ${h.layersRemoved.map(code).join(', ')}` : ''}`,
      ...h.fields.map((f) => `  - ${code(fieldLine(f))}`),
    ]),
  };
}

function catalogSection(diff: RepoDiff): Section {
  return {
    title: `Catalog: ${diff.catalog.changes.length} manifest(s), ${diff.catalog.flows.length} flow(s)`,
    lines: [
      ...diff.catalog.hazards.map((d) => `- ${diagnosticLine(d)}`),
      ...diff.catalog.flows.map(
        (f) =>
          `- flow ${code(f.flow)} ${f.change === 'allowed' ? 'now **allowed**' : 'now **denied**'}`,
      ),
      ...diff.catalog.changes.flatMap((m) =>
        m.patch === undefined
          ? [`- ${m.change} ${code(m.file)}`]
          : [`- changed ${code(m.file)}`, '', fence(m.patch, 'diff'), ''],
      ),
    ],
  };
}

/** The policy flips, grouped under the object whose change decides them. */
function policyLines(diff: RepoDiff): string[] {
  return diff.policy.causes.flatMap((cause) => [
    // An outbound transition is two whole flows: its lines below say it once.
    cause.kind === 'outbound'
      ? `- outbound ${code(cause.cause)}: ${cause.cells} flow(s)`
      : `- ${cause.kind} ${code(cause.cause)}: ${cause.cells} cell(s), ${cause.transitions.map(code).join(', ')}`,
    ...diff.policy.changes
      .filter((c) => c.cause === cause.cause && c.causeKind === cause.kind)
      .map(
        (c) =>
          `  - ${code(c.target)} from ${code(c.client)}: ${code(c.before)} → **${code(c.after)}**`,
      ),
  ]);
}

/** Compose-named files no project reads, as list items. */
function notReadLines(diff: RepoDiff): string[] {
  return diff.checked.composeNotRead.map(
    (n) =>
      `- not read: ${code(n.file)}${n.project.length > 0 ? ` (beside ${n.project.map(code).join(' + ')}; list it in labelwise.yaml to check it)` : ''}`,
  );
}

/** "No change", with what was checked, so an empty review still says what it looked at. */
function noChange(title: string, diff: RepoDiff, notRead: readonly string[]): string {
  const checked = checkedSentence(diff.checked);
  const lines = [
    title,
    `No change to what reaches what.${checked === undefined ? '' : ` ${checked}`}`,
  ];
  if (notRead.length > 0) lines.push(notRead.join('\n'));
  return `${lines.join('\n\n')}\n`;
}

function policySection(diff: RepoDiff): Section {
  return {
    title: `Policy: ${policyCounts(diff)} flip`,
    lines: [
      ...policyLines(diff),
      ...(diff.policy.changes.length === 0 && diff.policy.compiledChanged
        ? ['- the compiled policy changed']
        : []),
    ],
  };
}

function anchorSection(diff: RepoDiff): Section {
  return {
    title: `Anchors: ${diff.anchor.changes.length} claim(s) changed`,
    lines: [
      ...diff.anchor.changes.map(
        (c) =>
          `- ${code(`${c.project}/${c.backend}`)} ${c.change}: ${code(c.before ?? '(none)')} → ${code(c.after ?? '(none)')}`,
      ),
      ...diff.anchor.overlapsIntroduced.map((d) => `- ${diagnosticLine(d)}`),
    ],
  };
}

function diagnosticsSection(diff: RepoDiff): Section {
  return {
    title: `Diagnostics: ${diff.introduced.length} introduced, ${diff.resolved.length} resolved`,
    lines: [
      ...diff.introduced.map((d) => `- introduced: ${diagnosticLine(d)}`),
      ...diff.resolved.map((d) => `- resolved: ${diagnosticLine(d)}`),
    ],
  };
}

/** Over the limit: halve the longest section until the comment fits, and say what was cut. */
function fitToLimit(sections: Section[], header: string[], limit: number): string {
  let text = render(sections, header);
  for (let round = 0; text.length > limit && round < 64; round++) {
    const size = (section: Section): number => section.lines.join('\n').length;
    const longest = sections.reduce((a, b) => (size(b) > size(a) ? b : a));
    const marker = /^… (\d+) more/.exec(longest.lines[longest.lines.length - 1] ?? '');
    if (marker !== null) longest.lines.pop();
    if (longest.lines.length <= 1) break;
    const keep = Math.max(1, Math.floor(longest.lines.length / 2));
    const dropped = longest.lines.length - keep + (marker === null ? 0 : Number(marker[1]));
    longest.lines.splice(keep);
    longest.lines.push(`… ${dropped} more (run \`labelwise diff --json\` for all)`);
    text = render(sections, header);
  }
  if (text.length <= limit) return text;
  // Cut at a line end: every code span opens and closes on one line, so none is left open
  // to turn the rest of the comment live (an open fence keeps the rest as code, which is safe).
  const cut = text.slice(0, limit - 40);
  return `${cut.slice(0, Math.max(0, cut.lastIndexOf('\n')))}\n\n… (cut to fit a comment)\n`;
}

export function renderDiffMarkdown(diff: RepoDiff, name: string, limit = MARKDOWN_LIMIT): string {
  const title = `### labelwise diff ${code(name)}: ${code(diff.from.revision)} → ${code(diff.to.revision)}`;
  const notRead = notReadLines(diff);
  if (!diff.changed) return noChange(title, diff, notRead);
  const sections = [
    fleetSection(diff),
    catalogSection(diff),
    policySection(diff),
    anchorSection(diff),
    diagnosticsSection(diff),
  ];
  const header = [title, summaryLines(diff)];
  if (notRead.length > 0) header.push(notRead.join('\n'));
  return fitToLimit(sections, header, limit);
}

/**
 * `labelwise diff --format markdown`: sized for a pull-request comment. Each module is a section;
 * a section with many entries is collapsed (`<details>`), and the whole comment stays under a
 * size limit (GitHub takes 65,536 characters) by cutting the longest sections first, saying so.
 */
import { escapeControl, formatLocation } from '../../base/index.js';
import type { Diagnostic } from '../../base/index.js';
import { fieldLine } from './render-text.js';
import type { RepoDiff } from './model.js';
import { checkedSentence } from './checked.js';

export const MARKDOWN_LIMIT = 60_000;
const COLLAPSE_AFTER = 10;

/** Text safe outside code: no HTML, no Markdown structure from the input. */
function md(text: string): string {
  return escapeControl(text, true).replace(/[\\`*_{}[\]()#+\-.!|<>&~]/g, (ch) => `\\${ch}`);
}

/** An inline code span that the input cannot close. */
function code(text: string): string {
  const clean = escapeControl(text, true);
  const ticks = '`'.repeat(Math.max(1, ...[...clean.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${ticks} ${clean} ${ticks}`;
}

/** A fenced block that the input cannot close. */
function fence(text: string, lang = ''): string {
  const clean = escapeControl(text);
  const longest = Math.max(2, ...[...clean.matchAll(/`{3,}/g)].map((m) => m[0].length));
  const bar = '`'.repeat(longest + 1);
  return `${bar}${lang}\n${clean.trimEnd()}\n${bar}`;
}

function diagnosticLine(d: Diagnostic): string {
  const where = formatLocation(d);
  return `${d.severity === 'error' ? '❌' : '⚠️'} ${code(d.code)}${where === '' ? '' : ` ${code(where)}`} ${md(d.message)}`;
}

interface Section {
  readonly title: string;
  readonly lines: string[];
}

function render(sections: readonly Section[], header: readonly string[]): string {
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

/** The policy flips, grouped under the object that decides them. */
function policyLines(diff: RepoDiff): string[] {
  return [
    ...diff.policy.causes.flatMap((cause) => [
      `- ${cause.kind === 'authorization' ? 'authorization' : cause.kind} ${code(cause.cause)}: ${cause.cells} cell(s), ${cause.transitions.map(md).join(', ')}`,
      ...diff.policy.changes
        .filter((c) => c.cause === cause.cause && c.causeKind === cause.kind)
        .map(
          (c) =>
            `  - ${code(c.target)} from ${code(c.client)}: ${md(c.before)} → **${md(c.after)}**`,
        ),
    ]),
  ];
}

/** The comment within `limit`: the longest section halved until it fits, saying what was cut. */
function fitted(sections: Section[], header: readonly string[], limit: number): string {
  let text = render(sections, header);
  // Over the limit: halve the longest section until the comment fits, and say what was cut.
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
  return text.length > limit ? `${text.slice(0, limit - 40)}\n\n… (cut to fit a comment)\n` : text;
}

export function renderDiffMarkdown(diff: RepoDiff, name: string, limit = MARKDOWN_LIMIT): string {
  const header = [
    `### labelwise diff ${code(name)}: ${code(diff.from.revision)} → ${code(diff.to.revision)}`,
  ];
  const notRead = notReadLines(diff);
  if (!diff.changed) return noChange(header[0] as string, diff, notRead);
  const summary = [
    `fleet: ${diff.fleet.changes.length} host(s)`,
    `catalog: ${diff.catalog.changes.length} manifest(s), ${diff.catalog.flows.length} flow(s), ${diff.catalog.hazards.length} hazard(s)`,
    `policy: ${diff.policy.changes.length} cell(s) from ${diff.policy.causes.length} cause(s)`,
    `anchors: ${diff.anchor.changes.length} claim(s)`,
    `diagnostics: ${diff.introduced.length} introduced, ${diff.resolved.length} resolved${diff.errors > 0 ? ` — **${diff.errors} error(s) after the change**` : ''}`,
  ];
  header.push(summary.map((s) => `- ${s}`).join('\n'));
  if (notRead.length > 0) header.push(notRead.join('\n'));
  const sections: Section[] = [
    {
      title: `Fleet: ${diff.fleet.changes.length} host(s) changed`,
      lines: diff.fleet.changes.flatMap((h) => [
        `- **${md(h.host)}** ${h.change}${h.layersAdded.length > 0 ? `, now reached by ${h.layersAdded.map(code).join(', ')}` : ''}${h.layersRemoved.length > 0 ? `, no longer by ${h.layersRemoved.map(code).join(', ')}` : ''}`,
        ...h.fields.map((f) => `  - ${code(fieldLine(f))}`),
      ]),
    },
    {
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
    },
    {
      title: `Policy: ${diff.policy.changes.length} reachability cell(s) flip`,
      lines: [
        ...policyLines(diff),
        ...(diff.policy.changes.length === 0 && diff.policy.compiledChanged
          ? ['- the compiled policy changed']
          : []),
      ],
    },
    {
      title: `Anchors: ${diff.anchor.changes.length} claim(s) changed`,
      lines: [
        ...diff.anchor.changes.map(
          (c) =>
            `- ${code(`${c.project}/${c.backend}`)} ${c.change}: ${md(c.before ?? '(none)')} → ${md(c.after ?? '(none)')}`,
        ),
        ...diff.anchor.overlapsIntroduced.map((d) => `- ${diagnosticLine(d)}`),
      ],
    },
    {
      title: `Diagnostics: ${diff.introduced.length} introduced, ${diff.resolved.length} resolved`,
      lines: [
        ...diff.introduced.map((d) => `- introduced: ${diagnosticLine(d)}`),
        ...diff.resolved.map((d) => `- resolved: ${diagnosticLine(d)}`),
      ],
    },
  ];
  return fitted(sections, header, limit);
}

/**
 * `fleet affected` as text and as Markdown for a pull-request comment. Hosts whose changes are
 * identical are shown once, so one edit to a layer reaching 5,000 hosts is one block. Every
 * value from the repository is escaped (text) or code-quoted (Markdown).
 */
import { escapeControl, maxOf } from '../base/index.js';
import type { FieldChange, HostChanges, ResourceChange } from './changes.js';
import type { DesiredValue } from './model.js';
import { shortDigest } from './resolve/digest.js';

function value(v: DesiredValue | undefined): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return /^[^\s"'{}[\],:#|`]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v);
}

/** A field change in Datum's words: `mode 0600 -> 0400`, `set to …`, `no longer set`. */
export function describeField(f: FieldChange): string {
  switch (f.kind) {
    case 'set':
      return `${f.field} set to ${value(f.to)}`;
    case 'unset':
      return `${f.field} no longer set (was ${value(f.from)})`;
    case 'changed':
      return `${f.field} ${value(f.from)} -> ${value(f.to)}`;
    case 'content':
      return `${f.field} content ${typeof f.from === 'string' ? shortDigest(f.from) : '?'} -> ${typeof f.to === 'string' ? shortDigest(f.to) : '?'}`;
  }
}

function resourceLines(r: ResourceChange): { ref: string; change: string; layer: string }[] {
  if (r.status !== 'changed') return [{ ref: r.ref, change: r.status, layer: r.layers.join(', ') }];
  return r.fields.map((f) => ({ ref: r.ref, change: describeField(f), layer: f.layer ?? '' }));
}

/** The part of a host's changes that identical hosts share (digests aside). */
function signature(h: HostChanges): string {
  return JSON.stringify([h.status, h.layersAdded, h.layersRemoved, h.resources]);
}

interface Group {
  readonly hosts: string[];
  readonly sample: HostChanges;
}

function groups(changes: readonly HostChanges[]): Group[] {
  const byKey = new Map<string, Group>();
  for (const h of changes) {
    if (h.status === 'unchanged') continue;
    const key = signature(h);
    const group = byKey.get(key);
    if (group === undefined) byKey.set(key, { hosts: [h.host], sample: h });
    else group.hosts.push(h.host);
  }
  return [...byKey.values()];
}

function hostList(hosts: readonly string[]): string {
  const shown = hosts.slice(0, 5).join(', ');
  return hosts.length <= 5 ? shown : `${shown} and ${hosts.length - 5} more`;
}

function digestText(h: HostChanges): string {
  if (h.status === 'added') return `added (${shortDigest(h.to ?? '')})`;
  if (h.status === 'removed') return `removed (was ${shortDigest(h.from ?? '')})`;
  return `${shortDigest(h.from ?? '')} -> ${shortDigest(h.to ?? '')}`;
}

/** Text: the field-level changes of every changed host, identical hosts grouped. */
export function formatChangesText(changes: readonly HostChanges[]): string {
  const out: string[] = [];
  for (const g of groups(changes)) {
    const h = g.sample;
    const who =
      g.hosts.length === 1
        ? `${h.host}  ${digestText(h)}`
        : `${hostList(g.hosts)} (${g.hosts.length} hosts)`;
    out.push(`\n${escapeControl(who, true)}`);
    if (h.layersAdded.length > 0)
      out.push(`  layers now applying: ${escapeControl(h.layersAdded.join(', '), true)}`);
    if (h.layersRemoved.length > 0)
      out.push(`  layers no longer applying: ${escapeControl(h.layersRemoved.join(', '), true)}`);
    for (const r of h.resources)
      for (const line of resourceLines(r))
        out.push(
          escapeControl(
            `  ${line.ref}  ${line.change}${line.layer === '' ? '' : `  (${line.layer})`}`,
            true,
          ),
        );
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

/**
 * Markdown cell text: inline code the text cannot close (the fence is longer than any backtick
 * run inside), pipes escaped for the table. Code keeps `@user`, links and HTML from rendering.
 */
function code(text: string): string {
  const clean = escapeControl(text, true).replace(/\|/g, '\\|');
  if (clean === '') return '';
  const longest = maxOf(
    [...clean.matchAll(/`+/g)].map((m) => m[0].length),
    0,
  );
  const fence = '`'.repeat(longest + 1);
  return longest === 0 ? `${fence}${clean}${fence}` : `${fence} ${clean} ${fence}`;
}

/** Markdown for a pull-request comment: a summary line, then one table per group of hosts. */
export function formatChangesMarkdown(changes: readonly HostChanges[]): string {
  const total = changes.length;
  const affected = changes.filter((h) => h.status !== 'unchanged').length;
  const out: string[] = [`**${affected} of ${total} host${total === 1 ? '' : 's'} affected**`];
  for (const g of groups(changes)) {
    const h = g.sample;
    out.push('');
    out.push(
      `#### ${g.hosts.length === 1 ? `${code(h.host)} ${code(digestText(h))}` : `${g.hosts.length} hosts: ${g.hosts.slice(0, 10).map(code).join(', ')}${g.hosts.length > 10 ? ` and ${g.hosts.length - 10} more` : ''}`}`,
    );
    if (h.layersAdded.length > 0)
      out.push('', `Layers now applying: ${h.layersAdded.map(code).join(', ')}`);
    if (h.layersRemoved.length > 0)
      out.push('', `Layers no longer applying: ${h.layersRemoved.map(code).join(', ')}`);
    const rows = h.resources.flatMap(resourceLines);
    if (rows.length > 0) {
      out.push('', '| resource | change | layer |', '|---|---|---|');
      for (const row of rows)
        out.push(`| ${code(row.ref)} | ${code(row.change)} | ${code(row.layer)} |`);
    }
  }
  return `${out.join('\n')}\n`;
}

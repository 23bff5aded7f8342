/**
 * Placeholders in desired text (spec: Resolution step 3):
 *
 *   {{ host }}         the host's name
 *   {{ labels.KEY }}   the host's label KEY (an undeclared label is an error naming it and the host)
 *   {{ secrets.NAME }} left verbatim for the apply step; never substituted, never recorded
 *
 * Whitespace inside the braces is optional. Anything else between `{{` and `}}` is an error, and
 * so is a `{{` without its `}}`. Substitution is one pass: text that came from a label is never
 * scanned again, so a label value holding `{{` stays literal.
 */
import type { Labels } from '../../selector/index.js';
import type { Template, TemplatePart } from '../model.js';

export type ParsedText =
  | { readonly ok: true; readonly value: string | Template }
  | { readonly ok: false; readonly message: string };

const PLACEHOLDER = /^\s*(host|labels\.([^\s{}]+)|secrets\.([^\s{}]+))\s*$/;

/**
 * Splits text at its placeholders. Plain text (or text whose only placeholders are secrets)
 * comes back as the string itself, so the common case costs nothing at resolve time.
 */
export function parseText(text: string): ParsedText {
  if (!text.includes('{{')) return { ok: true, value: text };
  const parts: TemplatePart[] = [];
  let literal = '';
  let dynamic = false;
  let at = 0;
  for (;;) {
    const open = text.indexOf('{{', at);
    if (open < 0) break;
    const close = text.indexOf('}}', open + 2);
    if (close < 0) return { ok: false, message: `unclosed "{{" in ${JSON.stringify(text)}` };
    literal += text.slice(at, open);
    const inner = text.slice(open + 2, close);
    const raw = text.slice(open, close + 2);
    const match = PLACEHOLDER.exec(inner);
    if (match === null)
      return {
        ok: false,
        message: `unknown placeholder ${JSON.stringify(raw)}; use {{ host }}, {{ labels.KEY }} or {{ secrets.NAME }}`,
      };
    if (match[1] === 'host') {
      if (literal !== '') parts.push(literal);
      literal = '';
      parts.push({ kind: 'host' });
      dynamic = true;
    } else if (match[2] !== undefined) {
      if (literal !== '') parts.push(literal);
      literal = '';
      parts.push({ kind: 'label', key: match[2] });
      dynamic = true;
    } else {
      literal += raw;
    }
    at = close + 2;
  }
  literal += text.slice(at);
  if (!dynamic) return { ok: true, value: text };
  if (literal !== '') parts.push(literal);
  return { ok: true, value: { kind: 'template', text, parts } };
}

export type Substituted =
  | {
      readonly ok: true;
      readonly value: string;
      readonly used: readonly { placeholder: string; value: string }[];
    }
  | { readonly ok: false; readonly missingLabel: string };

/** Fills a template for one host. Fails on the first undeclared label. Never throws. */
export function substitute(template: Template, host: string, labels: Labels): Substituted {
  let out = '';
  const used: { placeholder: string; value: string }[] = [];
  for (const part of template.parts) {
    if (typeof part === 'string') out += part;
    else if (part.kind === 'host') {
      out += host;
      used.push({ placeholder: '{{ host }}', value: host });
    } else {
      const value = Object.prototype.hasOwnProperty.call(labels, part.key)
        ? labels[part.key]
        : undefined;
      if (typeof value !== 'string') return { ok: false, missingLabel: part.key };
      out += value;
      used.push({ placeholder: `{{ labels.${part.key} }}`, value });
    }
  }
  return { ok: true, value: out, used };
}

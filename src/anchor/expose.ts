/**
 * The backend labels (spec: Labels on backend containers):
 *
 * ```
 * anchord.expose    = item *( "," item )        ; empty items are skipped
 * item              = proto *WSP "/" *WSP port [ *WSP ":" *WSP port ]   ; blanks as anchord trims them
 * proto             = "tcp" | "udp"              ; case-insensitive
 * port              = 1*5DIGIT                   ; 1-65535, no ranges
 * anchord.expose.v6 = "" | "auto" | "off" | "false" | "no" | "0"
 * ```
 *
 * Label values come from whoever can start a container, so the parser is strict: anything else
 * is an error, and only the validated numbers ever leave this file.
 */
import { LabelwiseError, quote } from '../base/errors.js';
import type { ExposeEntry, Proto } from './model.js';

export const EXPOSE_LABEL = 'anchord.expose';
export const EXPOSE_V6_LABEL = 'anchord.expose.v6';

/** Longest label value we look at; a longer one is rejected before any splitting. */
const MAX_LABEL_LENGTH = 4096;
// anchord trims each part it splits off, so blanks around "/" and ":" are allowed.
const ITEM = /^([A-Za-z]{3})\s*\/\s*(\d{1,5})(?:\s*:\s*(\d{1,5}))?$/;

function short(text: string): string {
  return quote(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}

function port(text: string, item: string): number {
  const value = Number(text);
  if (value < 1 || value > 65535) {
    throw new LabelwiseError(
      'ANCHOR_INVALID_EXPOSE',
      `port ${short(text)} in ${short(item)} is outside 1-65535`,
      { source: { label: EXPOSE_LABEL } },
    );
  }
  return value;
}

/**
 * Parses an `anchord.expose` value. A blank value gives `[]` (not a backend); a value of only
 * commas is an error, as in anchord. Throws a
 * LabelwiseError (`ANCHOR_INVALID_EXPOSE`) on the first invalid item. Duplicate items collapse;
 * the same outside port mapped twice with different backend ports is an error. The result is
 * sorted by proto, then port.
 */
export function parseExpose(value: string): ExposeEntry[] {
  if (value.length > MAX_LABEL_LENGTH) {
    throw new LabelwiseError(
      'ANCHOR_INVALID_EXPOSE',
      `label value is longer than ${MAX_LABEL_LENGTH} characters`,
      { source: { label: EXPOSE_LABEL } },
    );
  }
  const byKey = new Map<string, ExposeEntry>();
  for (const raw of value.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const match = ITEM.exec(item);
    if (match === null) {
      throw new LabelwiseError(
        'ANCHOR_INVALID_EXPOSE',
        `invalid expose entry ${short(item)}: expected proto/port[:backendPort], e.g. tcp/443 or udp/53:5353`,
        { source: { label: EXPOSE_LABEL } },
      );
    }
    const proto = (match[1] as string).toLowerCase();
    if (proto !== 'tcp' && proto !== 'udp') {
      throw new LabelwiseError(
        'ANCHOR_INVALID_EXPOSE',
        `invalid protocol ${short(match[1] as string)} in ${short(item)}: expected tcp or udp`,
        {
          source: {
            label: EXPOSE_LABEL,
          },
        },
      );
    }
    const outside = port(match[2] as string, item);
    const backendPort = match[3] === undefined ? outside : port(match[3], item);
    const key = `${proto}/${outside}`;
    const previous = byKey.get(key);
    if (previous !== undefined && previous.backendPort !== backendPort) {
      throw new LabelwiseError(
        'ANCHOR_INVALID_EXPOSE',
        `${key} is mapped twice, to ports ${previous.backendPort} and ${backendPort}`,
        { source: { label: EXPOSE_LABEL } },
      );
    }
    byKey.set(key, { proto: proto as Proto, port: outside, backendPort });
  }
  if (byKey.size === 0 && value.trim() !== '') {
    // A value of only commas is set but says nothing: anchord rejects it ("set but empty"),
    // so the container gets the invalid-labels warning instead of silently not being a backend.
    throw new LabelwiseError('ANCHOR_INVALID_EXPOSE', 'anchord.expose is set but lists no entry', {
      source: {
        label: EXPOSE_LABEL,
      },
    });
  }
  return [...byKey.values()].sort((a, b) =>
    a.proto === b.proto ? a.port - b.port : a.proto < b.proto ? -1 : 1,
  );
}

/** Whether entries are mirrored to IPv6: `auto` (also empty/absent) or `off`. */
export type V6Mode = 'auto' | 'off';

/** Parses `anchord.expose.v6` (absent → auto). Throws `ANCHOR_INVALID_EXPOSE_V6` otherwise. */
export function parseExposeV6(value: string | undefined): V6Mode {
  const text = (value ?? '').trim().toLowerCase();
  if (text === '' || text === 'auto') return 'auto';
  if (text === 'off' || text === 'false' || text === 'no' || text === '0') return 'off';
  throw new LabelwiseError(
    'ANCHOR_INVALID_EXPOSE_V6',
    `invalid value ${short(value ?? '')}: expected auto, off, false, no or 0`,
    {
      source: {
        label: EXPOSE_V6_LABEL,
      },
    },
  );
}

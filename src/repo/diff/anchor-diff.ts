/**
 * Anchors: containers whose claim moves to another anchor, is lost or is gained between two
 * builds, read from the claim table the anchor stage writes (`anchors.json`).
 */
import { compareText } from '../../base/index.js';
import type { ClaimChange } from './model.js';

interface ClaimTable {
  readonly project: string;
  readonly anchors?: readonly { readonly service: string; readonly backends?: readonly string[] }[];
}

/** `project\u0000backend` → the anchors that claim it. */
function claims(files: Readonly<Record<string, string>>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const text = files['anchors.json'];
  if (text === undefined) return out;
  let tables: ClaimTable[];
  try {
    tables = JSON.parse(text) as ClaimTable[];
  } catch {
    return out;
  }
  if (!Array.isArray(tables)) return out;
  for (const table of tables)
    for (const anchor of table.anchors ?? [])
      for (const backend of anchor.backends ?? []) {
        const key = `${table.project}\u0000${backend}`;
        out.set(key, [...(out.get(key) ?? []), anchor.service].sort(compareText));
      }
  return out;
}

export function diffClaims(
  from: Readonly<Record<string, string>>,
  to: Readonly<Record<string, string>>,
): ClaimChange[] {
  const a = claims(from);
  const b = claims(to);
  const changes: ClaimChange[] = [];
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort(compareText)) {
    const [project, backend] = key.split('\u0000') as [string, string];
    const before = a.get(key)?.join(', ');
    const after = b.get(key)?.join(', ');
    if (before === after) continue;
    const change = before === undefined ? 'gained' : after === undefined ? 'lost' : 'moved';
    changes.push({ project, backend, change, before, after });
  }
  return changes;
}

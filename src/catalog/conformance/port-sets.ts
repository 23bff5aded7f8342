/**
 * Sets of ports as sorted, merged ranges per protocol: union, intersection, difference, and a
 * readable form (`TCP/53, UDP/53`, `TCP/1-65535`).
 */
import type { PortRange, Proto } from './cilium-policy.js';
import { PROTOCOLS } from './cilium-policy.js';

export type PortSet = readonly PortRange[];

export const ALL_PORTS: PortSet = PROTOCOLS.map((proto) => ({ proto, from: 1, to: 65535 }));

/** Sorted by protocol then start, overlapping and adjacent ranges merged. */
export function normalizePorts(ranges: readonly PortRange[]): PortRange[] {
  const sorted = [...ranges].sort((a, b) =>
    a.proto !== b.proto ? (a.proto < b.proto ? -1 : 1) : a.from - b.from,
  );
  const out: PortRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && last.proto === r.proto && r.from <= last.to + 1)
      out[out.length - 1] = { proto: r.proto, from: last.from, to: Math.max(last.to, r.to) };
    else out.push(r);
  }
  return out;
}

export function unionPorts(a: PortSet, b: PortSet): PortRange[] {
  return normalizePorts([...a, ...b]);
}

export function intersectPorts(a: PortSet, b: PortSet): PortRange[] {
  const out: PortRange[] = [];
  for (const x of a)
    for (const y of b) {
      if (x.proto !== y.proto) continue;
      const from = Math.max(x.from, y.from);
      const to = Math.min(x.to, y.to);
      if (from <= to) out.push({ proto: x.proto, from, to });
    }
  return normalizePorts(out);
}

export function subtractPorts(a: PortSet, b: PortSet): PortRange[] {
  let rest: PortRange[] = normalizePorts(a);
  for (const y of b) {
    const next: PortRange[] = [];
    for (const x of rest) {
      if (x.proto !== y.proto || y.to < x.from || y.from > x.to) next.push(x);
      else {
        if (x.from < y.from) next.push({ proto: x.proto, from: x.from, to: y.from - 1 });
        if (y.to < x.to) next.push({ proto: x.proto, from: y.to + 1, to: x.to });
      }
    }
    rest = next;
  }
  return normalizePorts(rest);
}

export function port(proto: Proto, number: number): PortRange {
  return { proto, from: number, to: number };
}

export function formatPorts(ports: PortSet): string {
  if (ports.length === 0) return 'no port';
  return normalizePorts(ports)
    .map((r) => `${r.proto}/${r.from === r.to ? r.from : `${r.from}-${r.to}`}`)
    .join(', ');
}

/**
 * The stateful DHCPv6 client as a pure state machine (RFC 8415 §18): SOLICIT to the
 * All_DHCP_Relay_Agents_and_Servers group, ADVERTISE, REQUEST, REPLY, with one IA_NA. Same
 * shape and rules as the DHCPv4 client (client.ts): one attempt lasts at most
 * `exchangeTimeoutMs`, failures back off up to `ANCHORD_DHCP_BACKOFF_MAX`, every REPLY with an
 * address counts `anchord_dhcp_acquired_total{family="v6",outcome="ok"}`.
 *
 * As anchord does, the client starts over with a fresh SOLICIT instead of sending RENEW: at the
 * IA's T1 (anchord: every hour; here T1, or half the shortest preferred lifetime, or an hour),
 * keeping its addresses meanwhile. They are /128 host addresses; routes come from router
 * advertisements, which the kernel handles. No RELEASE is sent on stop (anchord sends none);
 * the addresses are removed.
 */
import { backoffAfter } from './client-common.js';
import type { Backoff, ClientEventOf } from './client-common.js';
import type { Dhcp6Packet, IaNa } from './packet6.js';

export interface Client6Settings {
  readonly duid: Uint8Array;
  readonly iaid: number;
  /** Option 39; empty sends none. */
  readonly hostname: string;
  readonly backoffMaxMs: number;
  readonly exchangeTimeoutMs: number;
  readonly retransmitMs: number;
}

/** The addresses one REPLY granted, with absolute times (ms since the epoch). */
export interface Lease6 {
  readonly addresses: readonly string[];
  readonly serverId: Uint8Array;
  readonly renewAt: number;
  readonly expiresAt: number;
  /** Seconds of the shortest valid lifetime: `valid_lft` of the addresses. */
  readonly validSeconds: number;
}

interface Exchange6 {
  readonly xid: number;
  readonly startedAt: number;
  readonly retransmitMs: number;
  readonly nextSendAt: number;
  readonly attempts: number;
  readonly backoffMs: number;
  /** The lease still held while a re-solicit runs. */
  readonly held?: Lease6;
}

export type Client6State =
  | { readonly kind: 'idle'; readonly attempts: number; readonly backoffMs: number }
  | (Exchange6 & { readonly kind: 'soliciting' })
  | (Exchange6 & { readonly kind: 'requesting'; readonly serverId: Uint8Array; readonly ia: IaNa })
  | { readonly kind: 'bound'; readonly lease: Lease6; readonly attempts: number }
  | (Backoff & { readonly held?: Lease6 })
  | { readonly kind: 'stopped' };

export type Client6Event = ClientEventOf<Dhcp6Packet>;

export type Client6Action =
  | { readonly type: 'send'; readonly packet: Dhcp6Packet }
  | { readonly type: 'configure'; readonly lease: Lease6; readonly previous?: Lease6 }
  | { readonly type: 'unconfigure'; readonly lease: Lease6 }
  | { readonly type: 'acquired'; readonly outcome: 'ok' | 'error'; readonly reason?: string }
  | { readonly type: 'restart' };

export interface Step6Result {
  readonly state: Client6State;
  readonly actions: readonly Client6Action[];
}

export const INITIAL_STATE6: Client6State = { kind: 'idle', attempts: 0, backoffMs: 1000 };
const HOUR_MS = 3_600_000;
const LONGEST_MS = 2 ** 31 - 1;
const same = (state: Client6State): Step6Result => ({ state, actions: [] });

export function nextWakeup6(state: Client6State): number | undefined {
  if (state.kind === 'soliciting' || state.kind === 'requesting') return state.nextSendAt;
  if (state.kind === 'bound') return Math.min(state.lease.renewAt, state.lease.expiresAt);
  if (state.kind === 'backoff')
    return state.held === undefined ? state.until : Math.min(state.until, state.held.expiresAt);
  return undefined;
}

function message(
  type: Dhcp6Packet['type'],
  xid: number,
  s: Client6Settings,
  elapsedMs: number,
  extra: Partial<Dhcp6Packet> = {},
): Dhcp6Packet {
  return {
    type,
    xid,
    clientId: s.duid,
    iaNa: { iaid: s.iaid, t1: 0, t2: 0, addresses: [], status: 0 },
    elapsed: Math.min(Math.floor(elapsedMs / 10), 0xffff),
    ...(s.hostname !== '' ? { fqdn: s.hostname } : {}),
    status: 0,
    ...extra,
  };
}

function solicit(
  prior: { attempts: number; backoffMs: number; held?: Lease6 },
  now: number,
  entropy: number,
  s: Client6Settings,
): Step6Result {
  const xid = entropy & 0xffffff;
  return {
    state: {
      kind: 'soliciting',
      xid,
      startedAt: now,
      retransmitMs: s.retransmitMs,
      nextSendAt: now + Math.min(s.retransmitMs, s.exchangeTimeoutMs),
      attempts: prior.attempts + 1,
      backoffMs: prior.backoffMs,
      ...(prior.held !== undefined ? { held: prior.held } : {}),
    },
    actions: [
      ...(prior.attempts > 0 ? [{ type: 'restart' } as const] : []),
      { type: 'send', packet: message('SOLICIT', xid, s, 0) },
    ],
  };
}

function fail(state: Exchange6, now: number, reason: string, s: Client6Settings): Step6Result {
  return {
    state: {
      ...backoffAfter(state, now, s.backoffMaxMs),
      ...(state.held !== undefined ? { held: state.held } : {}),
    },
    actions: [{ type: 'acquired', outcome: 'error', reason }],
  };
}

/** The lease a REPLY grants: its addresses with a non-zero valid lifetime. */
export function lease6FromReply(ia: IaNa, serverId: Uint8Array, now: number): Lease6 | undefined {
  const usable = ia.addresses.filter((a) => a.valid > 0);
  if (usable.length === 0) return undefined;
  const valid = usable.reduce((least, a) => Math.min(least, a.valid), Number.POSITIVE_INFINITY);
  const preferred = usable.reduce(
    (least, a) => Math.min(least, a.preferred),
    Number.POSITIVE_INFINITY,
  );
  const renewMs = ia.t1 > 0 ? ia.t1 * 1000 : preferred > 0 ? (preferred * 1000) / 2 : HOUR_MS;
  return {
    addresses: usable.map((a) => a.address),
    serverId,
    renewAt: now + Math.min(renewMs, LONGEST_MS),
    expiresAt:
      valid === 0xffffffff ? Number.POSITIVE_INFINITY : now + Math.min(valid * 1000, LONGEST_MS),
    validSeconds: valid,
  };
}

function onExchange(
  state: Extract<Client6State, { kind: 'soliciting' | 'requesting' }>,
  event: Client6Event,
  s: Client6Settings,
): Step6Result {
  if (event.type === 'timer') {
    if (state.held !== undefined && event.now >= state.held.expiresAt)
      return {
        state: { ...state, held: undefined } as Client6State,
        actions: [{ type: 'unconfigure', lease: state.held }],
      };
    if (event.now >= state.startedAt + s.exchangeTimeoutMs)
      return fail(
        state,
        event.now,
        `no ${state.kind === 'soliciting' ? 'ADVERTISE' : 'REPLY'} before the timeout`,
        s,
      );
    if (event.now < state.nextSendAt) return same(state);
    const retransmitMs = Math.min(state.retransmitMs * 2, 120_000);
    const elapsed = event.now - state.startedAt;
    const packet =
      state.kind === 'soliciting'
        ? message('SOLICIT', state.xid, s, elapsed)
        : message('REQUEST', state.xid, s, elapsed, { serverId: state.serverId, iaNa: state.ia });
    return {
      state: {
        ...state,
        retransmitMs,
        nextSendAt: Math.min(event.now + retransmitMs, state.startedAt + s.exchangeTimeoutMs),
      },
      actions: [{ type: 'send', packet }],
    };
  }
  if (event.type !== 'packet' || event.packet.xid !== state.xid) return same(state);
  const p = event.packet;
  if (p.serverId === undefined || p.status !== 0) return same(state);
  if (state.kind === 'soliciting' && p.type === 'ADVERTISE')
    return onAdvertise(state, event.now, p, s);
  if (state.kind === 'requesting' && p.type === 'REPLY') return onReply(state, event.now, p, s);
  return same(state);
}

function onAdvertise(
  state: Extract<Client6State, { kind: 'soliciting' }>,
  now: number,
  p: Dhcp6Packet,
  s: Client6Settings,
): Step6Result {
  const ia = p.iaNa;
  if (p.serverId === undefined || ia === undefined || ia.status !== 0 || ia.addresses.length === 0)
    return same(state);
  const request = message('REQUEST', state.xid, s, now - state.startedAt, {
    serverId: p.serverId,
    iaNa: ia,
  });
  return {
    state: {
      ...state,
      kind: 'requesting',
      serverId: p.serverId,
      ia,
      retransmitMs: s.retransmitMs,
      nextSendAt: Math.min(now + s.retransmitMs, state.startedAt + s.exchangeTimeoutMs),
    },
    actions: [{ type: 'send', packet: request }],
  };
}

/** A REPLY without a usable IA_NA fails the attempt, with anchord's words. */
function onReply(
  state: Extract<Client6State, { kind: 'requesting' }>,
  now: number,
  p: Dhcp6Packet,
  s: Client6Settings,
): Step6Result {
  const ia = p.iaNa;
  const lease =
    ia === undefined || ia.status !== 0
      ? undefined
      : lease6FromReply(ia, p.serverId ?? state.serverId, now);
  if (lease === undefined) return fail(state, now, 'v6 reply contained no IA_NA addresses', s);
  const actions: Client6Action[] = [];
  if (state.held !== undefined) {
    const kept = new Set(lease.addresses);
    if (state.held.addresses.some((a) => !kept.has(a)))
      actions.push({ type: 'unconfigure', lease: state.held });
  }
  actions.push(
    { type: 'configure', lease, ...(state.held !== undefined ? { previous: state.held } : {}) },
    { type: 'acquired', outcome: 'ok' },
  );
  return { state: { kind: 'bound', lease, attempts: state.attempts }, actions };
}

/** One transition. Total. */
export function step6(state: Client6State, event: Client6Event, s: Client6Settings): Step6Result {
  if (event.type === 'stop') {
    const held = state.kind === 'bound' ? state.lease : 'held' in state ? state.held : undefined;
    return {
      state: { kind: 'stopped' },
      actions: held === undefined ? [] : [{ type: 'unconfigure', lease: held }],
    };
  }
  switch (state.kind) {
    case 'idle':
      return event.type === 'start' ? solicit(state, event.now, event.entropy, s) : same(state);
    case 'backoff':
      if (event.type !== 'timer') return same(state);
      if (state.held !== undefined && event.now >= state.held.expiresAt)
        return {
          state: { ...state, held: undefined } as Client6State,
          actions: [{ type: 'unconfigure', lease: state.held }],
        };
      return event.now >= state.until ? solicit(state, event.now, event.entropy, s) : same(state);
    case 'soliciting':
    case 'requesting':
      return onExchange(state, event, s);
    case 'bound':
      if (
        event.type !== 'timer' ||
        event.now < Math.min(state.lease.renewAt, state.lease.expiresAt)
      )
        return same(state);
      // A fresh SOLICIT (anchord's re-solicit), the addresses kept until they expire; the
      // back-off starts again at 1 s.
      return solicit(
        { attempts: state.attempts, backoffMs: 1000, held: state.lease },
        event.now,
        event.entropy,
        s,
      );
    case 'stopped':
      return same(state);
  }
}

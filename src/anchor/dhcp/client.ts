/**
 * The DHCPv4 client as a pure state machine: `step(state, event, settings)` returns the next
 * state and the actions the edge carries out (send a message, configure or remove the address,
 * set the default route, count a metric). No clock, no randomness: the event carries `now` and
 * the entropy for a new transaction id, so every path is a table of cases.
 *
 * States (RFC 2131 §4.4, figure 5): selecting (DISCOVER sent), requesting (REQUEST for an
 * offer), bound, renewing (unicast REQUEST at T1), rebinding (broadcast REQUEST at T2), backoff
 * (waiting before the next attempt), stopped. anchord's rules on top:
 *
 * 1. One attempt (DISCOVER to ACK) lasts at most `exchangeTimeoutMs` (anchord: 30 s); a failed
 *    attempt, a NAK, or a lease that ran out counts `anchord_dhcp_acquired_total{outcome=error}`
 *    and waits a back-off that starts at 1 s and doubles up to `ANCHORD_DHCP_BACKOFF_MAX`.
 *    Every attempt after the first counts `anchord_dhcp_client_restarts_total`.
 * 2. Every ACK (first lease or renewal) counts `outcome=ok` and configures the address; the
 *    router of option 3 becomes the default route.
 * 3. On stop, a held lease is RELEASEd and its address removed.
 *
 * Where this differs from anchord, on purpose: a renewal that gets no answer keeps the address
 * until the lease ends (RENEWING, then REBINDING at T2, as RFC 2131 §4.4.5 says) instead of
 * dropping it at once; and a successful lease resets the back-off to 1 s.
 */
import { backoffAfter } from './client-common.js';
import type { Backoff, ClientEventOf } from './client-common.js';
import type { Lease } from './lease.js';
import { leaseFromAck } from './lease.js';
import { BROADCAST_FLAG, OPTION } from './packet.js';
import type { DhcpOptions, DhcpPacket, MessageType } from './packet.js';

/** What the client needs to know about itself. */
export interface ClientSettings {
  /** The outside interface's MAC (`chaddr`). */
  readonly mac: string;
  /** Option 12; empty sends none. */
  readonly hostname: string;
  /** Option 61. */
  readonly clientId: Uint8Array;
  /** `ANCHORD_DHCP_BACKOFF_MAX` (default 5 min). */
  readonly backoffMaxMs: number;
  /** How long one DISCOVER-to-ACK attempt may take. Default in {@link DEFAULT_TIMING}. */
  readonly exchangeTimeoutMs: number;
  /** First retransmission delay; doubles up to 64 s (RFC 2131 §4.1). */
  readonly retransmitMs: number;
  /**
   * The longest wait between two renewal (or rebinding) requests. RFC 2131 §4.4.5 waits half
   * the time left, which is most of an hour on a day-long lease; the cap bounds how long a
   * server that came back goes unnoticed.
   */
  readonly renewRetryMaxMs: number;
}

export const DEFAULT_TIMING = {
  exchangeTimeoutMs: 30_000,
  retransmitMs: 4000,
  renewRetryMaxMs: 60_000,
} as const;
const FIRST_BACKOFF_MS = 1000;
const LONGEST_RETRANSMIT_MS = 64_000;

interface Exchange {
  readonly xid: number;
  readonly startedAt: number;
  readonly retransmitMs: number;
  readonly nextSendAt: number;
}

export type ClientState =
  | { readonly kind: 'idle'; readonly attempts: number; readonly backoffMs: number }
  | (Exchange & {
      readonly kind: 'selecting';
      readonly attempts: number;
      readonly backoffMs: number;
    })
  | (Exchange & {
      readonly kind: 'requesting';
      readonly attempts: number;
      readonly backoffMs: number;
      readonly offer: { readonly address: string; readonly serverId: string };
    })
  | { readonly kind: 'bound'; readonly lease: Lease; readonly attempts: number }
  | (Exchange & {
      readonly kind: 'renewing' | 'rebinding';
      readonly lease: Lease;
      readonly attempts: number;
    })
  | Backoff
  | { readonly kind: 'stopped' };

export type ClientEvent = ClientEventOf<DhcpPacket>;

export type ClientAction =
  | { readonly type: 'send'; readonly packet: DhcpPacket; readonly to: 'broadcast' | string }
  | { readonly type: 'configure'; readonly lease: Lease; readonly previous?: Lease }
  | { readonly type: 'unconfigure'; readonly lease: Lease }
  | { readonly type: 'route'; readonly gateway: string }
  | { readonly type: 'acquired'; readonly outcome: 'ok' | 'error'; readonly reason?: string }
  | { readonly type: 'restart' };

export interface StepResult {
  readonly state: ClientState;
  readonly actions: readonly ClientAction[];
}

/** The state before `start`. */
export const INITIAL_STATE: ClientState = {
  kind: 'idle',
  attempts: 0,
  backoffMs: FIRST_BACKOFF_MS,
};

/** What this client asks for (option 55): mask, routers, DNS, lease, T1, T2. */
export const REQUESTED_PARAMETERS: readonly number[] = [
  OPTION.subnetMask,
  OPTION.routers,
  OPTION.dnsServers,
  OPTION.leaseTime,
  OPTION.renewalTime,
  OPTION.rebindingTime,
];

/** When the edge should next deliver a `timer` event; undefined when nothing is pending. */
export function nextWakeup(state: ClientState): number | undefined {
  switch (state.kind) {
    case 'selecting':
    case 'requesting':
    case 'renewing':
    case 'rebinding':
      return state.nextSendAt;
    case 'bound':
      return state.lease.renewAt;
    case 'backoff':
      return state.until;
    default:
      return undefined;
  }
}

function message(
  type: MessageType,
  xid: number,
  settings: ClientSettings,
  fields: { ciaddr?: string; broadcast?: boolean; secs?: number } = {},
  options: DhcpOptions = {},
): DhcpPacket {
  return {
    op: 1,
    xid,
    secs: Math.min(fields.secs ?? 0, 0xffff),
    flags: fields.broadcast === false ? 0 : BROADCAST_FLAG,
    ciaddr: fields.ciaddr ?? '0.0.0.0',
    yiaddr: '0.0.0.0',
    siaddr: '0.0.0.0',
    giaddr: '0.0.0.0',
    chaddr: settings.mac,
    options: {
      messageType: type,
      clientId: settings.clientId,
      ...(settings.hostname !== '' && type !== 'RELEASE' ? { hostname: settings.hostname } : {}),
      ...(type === 'DISCOVER' || type === 'REQUEST'
        ? { parameterRequestList: REQUESTED_PARAMETERS }
        : {}),
      ...options,
    },
  };
}

function secsSince(startedAt: number, now: number): number {
  return Math.floor((now - startedAt) / 1000);
}

function discover(
  state: { attempts: number; backoffMs: number },
  now: number,
  entropy: number,
  s: ClientSettings,
): StepResult {
  const xid = entropy >>> 0;
  const restarted = state.attempts > 0;
  return {
    state: {
      kind: 'selecting',
      attempts: state.attempts + 1,
      backoffMs: state.backoffMs,
      xid,
      startedAt: now,
      retransmitMs: s.retransmitMs,
      nextSendAt: Math.min(now + s.retransmitMs, now + s.exchangeTimeoutMs),
    },
    actions: [
      ...(restarted ? [{ type: 'restart' } as const] : []),
      { type: 'send', packet: message('DISCOVER', xid, s), to: 'broadcast' },
    ],
  };
}

/** A failed attempt: count it, wait the back-off, double it for next time. */
function fail(
  state: { attempts: number; backoffMs: number },
  now: number,
  reason: string,
  s: ClientSettings,
  extra: readonly ClientAction[] = [],
): StepResult {
  return {
    state: backoffAfter(state, now, s.backoffMaxMs),
    actions: [...extra, { type: 'acquired', outcome: 'error', reason }],
  };
}

/** A reply that belongs to this exchange: our xid, our MAC, a reply, the wanted type. */
function answers(packet: DhcpPacket, xid: number, s: ClientSettings): boolean {
  return packet.op === 2 && packet.xid === xid && packet.chaddr === s.mac;
}

function nextRetransmit(exchange: Exchange, now: number, limit: number): Exchange {
  const retransmitMs = Math.min(exchange.retransmitMs * 2, LONGEST_RETRANSMIT_MS);
  return { ...exchange, retransmitMs, nextSendAt: Math.min(now + retransmitMs, limit) };
}

function bind(
  ack: DhcpPacket,
  now: number,
  attempts: number,
  fallbackServer: string,
  previous: Lease | undefined,
): StepResult | undefined {
  const lease = leaseFromAck(ack, now, fallbackServer);
  if (lease === undefined) return undefined;
  const actions: ClientAction[] = [
    { type: 'configure', lease, ...(previous !== undefined ? { previous } : {}) },
  ];
  if (lease.router !== undefined) actions.push({ type: 'route', gateway: lease.router });
  actions.push({ type: 'acquired', outcome: 'ok' });
  return { state: { kind: 'bound', lease, attempts }, actions };
}

function onSelecting(
  state: Extract<ClientState, { kind: 'selecting' }>,
  event: ClientEvent,
  s: ClientSettings,
): StepResult {
  if (event.type === 'timer') {
    if (event.now >= state.startedAt + s.exchangeTimeoutMs)
      return fail(state, event.now, 'no DHCPOFFER before the timeout', s);
    if (event.now < state.nextSendAt) return { state, actions: [] };
    const secs = secsSince(state.startedAt, event.now);
    return {
      state: {
        ...state,
        ...nextRetransmit(state, event.now, state.startedAt + s.exchangeTimeoutMs),
      },
      actions: [
        { type: 'send', packet: message('DISCOVER', state.xid, s, { secs }), to: 'broadcast' },
      ],
    };
  }
  if (event.type !== 'packet') return { state, actions: [] };
  const offer = event.packet;
  const serverId = offer.options.serverId;
  if (!answers(offer, state.xid, s) || offer.options.messageType !== 'OFFER')
    return { state, actions: [] };
  if (serverId === undefined || offer.yiaddr === '0.0.0.0') return { state, actions: [] };
  const secs = secsSince(state.startedAt, event.now);
  const request = message(
    'REQUEST',
    state.xid,
    s,
    { secs },
    { requestedIp: offer.yiaddr, serverId },
  );
  return {
    state: {
      ...state,
      kind: 'requesting',
      offer: { address: offer.yiaddr, serverId },
      retransmitMs: s.retransmitMs,
      nextSendAt: Math.min(event.now + s.retransmitMs, state.startedAt + s.exchangeTimeoutMs),
    },
    actions: [{ type: 'send', packet: request, to: 'broadcast' }],
  };
}

function onRequesting(
  state: Extract<ClientState, { kind: 'requesting' }>,
  event: ClientEvent,
  s: ClientSettings,
): StepResult {
  if (event.type === 'timer') {
    if (event.now >= state.startedAt + s.exchangeTimeoutMs)
      return fail(state, event.now, 'no DHCPACK before the timeout', s);
    if (event.now < state.nextSendAt) return { state, actions: [] };
    const secs = secsSince(state.startedAt, event.now);
    const options = { requestedIp: state.offer.address, serverId: state.offer.serverId };
    return {
      state: {
        ...state,
        ...nextRetransmit(state, event.now, state.startedAt + s.exchangeTimeoutMs),
      },
      actions: [
        {
          type: 'send',
          packet: message('REQUEST', state.xid, s, { secs }, options),
          to: 'broadcast',
        },
      ],
    };
  }
  if (event.type !== 'packet' || !answers(event.packet, state.xid, s))
    return { state, actions: [] };
  const type = event.packet.options.messageType;
  if (type === 'NAK') return fail(state, event.now, 'the server answered DHCPNAK', s);
  if (type !== 'ACK') return { state, actions: [] };
  const bound = bind(event.packet, event.now, state.attempts, state.offer.serverId, undefined);
  if (bound === undefined) return { state, actions: [] };
  // A lease resets the back-off: the next failure waits 1 s again.
  return bound;
}

function renewRequest(lease: Lease, xid: number, s: ClientSettings, secs: number): DhcpPacket {
  // RFC 2131 §4.3.2: in RENEWING and REBINDING, ciaddr carries the address and neither the
  // requested-address nor the server-identifier option is sent.
  return message('REQUEST', xid, s, { ciaddr: lease.address, broadcast: false, secs });
}

function onBound(
  state: Extract<ClientState, { kind: 'bound' }>,
  event: ClientEvent,
  s: ClientSettings,
): StepResult {
  if (event.type !== 'timer' || event.now < state.lease.renewAt) return { state, actions: [] };
  const xid = event.entropy >>> 0;
  const wait = retryWait(state.lease.rebindAt - event.now, s);
  return {
    state: {
      kind: 'renewing',
      lease: state.lease,
      attempts: state.attempts,
      xid,
      startedAt: event.now,
      retransmitMs: s.retransmitMs,
      nextSendAt: Math.min(event.now + wait, state.lease.rebindAt),
    },
    actions: [
      { type: 'send', packet: renewRequest(state.lease, xid, s, 0), to: state.lease.serverId },
    ],
  };
}

/** RENEWING and REBINDING: retry at half the time left (at least one retransmit delay). */
function onRenewing(
  state: Extract<ClientState, { kind: 'renewing' | 'rebinding' }>,
  event: ClientEvent,
  s: ClientSettings,
): StepResult {
  const lease = state.lease;
  if (event.type === 'packet') {
    if (!answers(event.packet, state.xid, s)) return { state, actions: [] };
    const type = event.packet.options.messageType;
    if (type === 'NAK')
      return fail(
        { attempts: state.attempts, backoffMs: FIRST_BACKOFF_MS },
        event.now,
        'the server answered DHCPNAK to a renewal',
        s,
        [{ type: 'unconfigure', lease }],
      );
    if (type !== 'ACK') return { state, actions: [] };
    return (
      bind(event.packet, event.now, state.attempts, lease.serverId, lease) ?? { state, actions: [] }
    );
  }
  if (event.type !== 'timer' || event.now < state.nextSendAt) return { state, actions: [] };
  if (event.now >= lease.expiresAt)
    return fail(
      { attempts: state.attempts, backoffMs: FIRST_BACKOFF_MS },
      event.now,
      'the lease ran out without a renewal',
      s,
      [{ type: 'unconfigure', lease }],
    );
  const rebinding = state.kind === 'rebinding' || event.now >= lease.rebindAt;
  const limit = rebinding ? lease.expiresAt : lease.rebindAt;
  const wait = retryWait(limit - event.now, s);
  const secs = secsSince(state.startedAt, event.now);
  return {
    state: {
      ...state,
      kind: rebinding ? 'rebinding' : 'renewing',
      nextSendAt: Math.min(event.now + wait, limit),
    },
    actions: [
      {
        type: 'send',
        packet: renewRequest(lease, state.xid, s, secs),
        to: rebinding ? 'broadcast' : lease.serverId,
      },
    ],
  };
}

/** Half the time left, at least one retransmit delay, at most the renewal retry cap. */
function retryWait(leftMs: number, s: ClientSettings): number {
  return Math.min(Math.max(s.retransmitMs, leftMs / 2), s.renewRetryMaxMs);
}

function heldLease(state: ClientState): Lease | undefined {
  return state.kind === 'bound' || state.kind === 'renewing' || state.kind === 'rebinding'
    ? state.lease
    : undefined;
}

/** RELEASE (RFC 2131 §4.4.6): unicast to the server, ciaddr set, the server identifier named. */
function release(lease: Lease, entropy: number, s: ClientSettings): readonly ClientAction[] {
  const packet = message(
    'RELEASE',
    entropy >>> 0,
    s,
    { ciaddr: lease.address, broadcast: false },
    {
      serverId: lease.serverId,
    },
  );
  return [
    { type: 'send', packet, to: lease.serverId },
    { type: 'unconfigure', lease },
  ];
}

/** One transition. Total: every state accepts every event (unwanted ones change nothing). */
export function step(state: ClientState, event: ClientEvent, settings: ClientSettings): StepResult {
  if (event.type === 'stop') {
    const lease = heldLease(state);
    return {
      state: { kind: 'stopped' },
      actions: lease === undefined ? [] : release(lease, event.entropy, settings),
    };
  }
  switch (state.kind) {
    case 'idle':
      return event.type === 'start'
        ? discover(state, event.now, event.entropy, settings)
        : { state, actions: [] };
    case 'backoff':
      return event.type === 'timer' && event.now >= state.until
        ? discover(state, event.now, event.entropy, settings)
        : { state, actions: [] };
    case 'selecting':
      return onSelecting(state, event, settings);
    case 'requesting':
      return onRequesting(state, event, settings);
    case 'bound':
      return onBound(state, event, settings);
    case 'renewing':
    case 'rebinding':
      return onRenewing(state, event, settings);
    case 'stopped':
      return { state, actions: [] };
  }
}

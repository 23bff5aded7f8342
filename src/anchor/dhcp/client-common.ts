/** What the DHCPv4 and DHCPv6 clients share: their events and their back-off after a failure. */

/** An event of either client; `entropy` is fresh randomness, `packet` a decoded reply. */
export type ClientEventOf<P> =
  | { readonly type: 'start' | 'timer'; readonly now: number; readonly entropy: number }
  | {
      readonly type: 'packet';
      readonly now: number;
      readonly entropy: number;
      readonly packet: P;
    }
  | { readonly type: 'stop'; readonly now: number; readonly entropy: number };

export interface Backoff {
  readonly kind: 'backoff';
  readonly attempts: number;
  readonly backoffMs: number;
  readonly until: number;
  /** How long this back-off waits (`until` minus the failure's time). */
  readonly waitMs: number;
}

/** A failed attempt: wait the back-off, double it for next time, neither past `maxMs`. */
export function backoffAfter(
  state: { readonly attempts: number; readonly backoffMs: number },
  now: number,
  maxMs: number,
): Backoff {
  const waitMs = Math.min(state.backoffMs, maxMs);
  return {
    kind: 'backoff',
    attempts: state.attempts,
    backoffMs: Math.min(state.backoffMs * 2, maxMs),
    until: now + waitMs,
    waitMs,
  };
}

/**
 * An outbound flow in one line, as the matrix table, the report and `labelwise diff` show it:
 * where the requests go (backends and their shares, or the answer the proxy gives instead),
 * then the timeouts, retries and circuit breaker in force. Two flows read alike exactly when
 * their requests are treated alike, so a diff of these lines flips only where routing changes.
 */
import type { OutboundFlow } from './outbound.js';

const percent = (share: number): string => `${Math.round(share * 1000) / 10}%`;

/** Where the flow's requests go: `booksapp/books:7002 90%, booksapp/books-v2:7002 10%`, `403 …`. */
export function flowDestination(f: OutboundFlow): string {
  switch (f.decision) {
    case 'not-found':
      return '404 (no route rule matches)';
    case 'deny':
      return '403 (egress denied)';
    case 'redirect':
      return `redirect ${f.status ?? ''}`.trimEnd();
    case 'fail':
      return `500 (no working backend: ${f.backends.map((b) => `${b.name}${b.reason === undefined ? '' : ` ${b.reason}`}`).join(', ')})`;
    default: {
      const to = f.backends
        .map(
          (b) =>
            `${b.name} ${percent(b.share)}${b.outcome === 'fail' ? ` (500: ${b.reason ?? 'fails'})` : ''}`,
        )
        .join(', ');
      return `${to}${f.egress === null ? '' : ', egress allowed'}`;
    }
  }
}

/** The timeouts, retries and circuit breaker in force, `; `-separated; empty when none. */
export function flowPolicies(f: OutboundFlow): string {
  const parts: string[] = [];
  const t = f.timeouts;
  const timeouts = (
    [
      ['request', t.request],
      ['response', t.response],
      ['idle', t.idle],
    ] as const
  ).filter(([, v]) => v !== null);
  if (timeouts.length > 0)
    parts.push(`timeouts ${timeouts.map(([k, v]) => `${k} ${v ?? ''}`).join(', ')}`);
  const r = f.retry;
  if (r !== null)
    parts.push(
      `retry ${r.conditions.length === 0 ? 'default conditions' : r.conditions.join(',')} limit ${r.limit}${r.timeout === null ? '' : ` timeout ${r.timeout}`}`,
    );
  const c = f.circuitBreaker;
  if (c !== null)
    parts.push(
      `circuit breaker ${c.mode} after ${c.maxFailures} failures (${c.minPenalty}-${c.maxPenalty})`,
    );
  return parts.join('; ');
}

/** The flow in one line: `* /books/* → booksapp/books:7002 90%, …; timeouts request 5s`. */
export function flowSummary(f: OutboundFlow): string {
  const policies = flowPolicies(f);
  return `${f.matches} → ${flowDestination(f)}${policies === '' ? '' : `; ${policies}`}`;
}

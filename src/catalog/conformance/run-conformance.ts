/** Runs every conformance check over a rendered set, in a stable order. */
import { OBJECT_CHECKS } from './check-objects.js';
import { checkGatewaySelectors } from './check-gateway-selectors.js';
import { checkPeers } from './check-peers.js';
import { checkReachability } from './check-reachability.js';
import { checkSelectors } from './check-selectors.js';
import type { CheckResult, ConformanceInput } from './model.js';

/**
 * Every check's results: one per object examined, failures and passes alike, sorted by check
 * name then object. Pure and deterministic.
 */
export function runConformance(input: ConformanceInput): CheckResult[] {
  const results = [
    ...checkSelectors(input),
    ...checkGatewaySelectors(input),
    ...checkPeers(input),
    ...checkReachability(input),
    ...OBJECT_CHECKS.flatMap((check) => check(input)),
  ];
  return results.sort((a, b) =>
    a.name !== b.name
      ? a.name < b.name
        ? -1
        : 1
      : a.object < b.object
        ? -1
        : a.object > b.object
          ? 1
          : 0,
  );
}

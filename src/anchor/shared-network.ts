/**
 * Which of the anchor's networks backend addresses are read from (spec: Discovery). Pure.
 *
 * Order of choice: the pinned network (`ANCHORD_SHARED_NETWORK`); else a network already locked
 * in (chosen earlier while at least one backend was on it); else the candidate (the anchor's
 * networks minus the outside one) most listed backends are attached to, ties going to a name
 * containing `transit`, then to the alphabetically first.
 */
import { compareText } from '../base/index.js';
import { LabelwiseError, quote } from '../base/errors.js';

export interface SharedNetworkInput {
  /** Names of the networks the anchor container is attached to. */
  readonly selfNetworks: readonly string[];
  /** Networks never used as the shared one (the outside network). */
  readonly exclude: readonly string[];
  readonly pinned?: string | undefined;
  readonly locked?: string | undefined;
  /** For each listed backend, the names of the networks it is attached to. */
  readonly backendNetworks: readonly (readonly string[])[];
}

export interface SharedNetworkChoice {
  readonly network: string;
  /** How many listed backends are attached to it. */
  readonly backends: number;
  /** True when the choice should stay for the process lifetime (pinned, or ≥ 1 backend on it). */
  readonly lock: boolean;
}

/**
 * Chooses the shared network. Throws a LabelwiseError when the pinned network is not one of the
 * anchor's (`ANCHOR_SHARED_NETWORK_NOT_ATTACHED`) or there is no candidate at all
 * (`ANCHOR_NO_SHARED_NETWORK`); both are fatal for the daemon. Deterministic.
 */
export function chooseSharedNetwork(input: SharedNetworkInput): SharedNetworkChoice {
  const counts = new Map<string, number>();
  for (const networks of input.backendNetworks) {
    for (const name of new Set(networks)) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  if (input.pinned !== undefined) {
    if (!input.selfNetworks.includes(input.pinned)) {
      throw new LabelwiseError(
        'ANCHOR_SHARED_NETWORK_NOT_ATTACHED',
        `the anchor is not attached to the shared network ${quote(input.pinned)} (attached: ${input.selfNetworks.map((n) => quote(n)).join(', ') || 'none'})`,
        {
          source: { env: 'ANCHORD_SHARED_NETWORK' },
          hint: 'attach the anchor container to that network or fix ANCHORD_SHARED_NETWORK',
        },
      );
    }
    return { network: input.pinned, backends: counts.get(input.pinned) ?? 0, lock: true };
  }
  const excluded = new Set(input.exclude);
  const candidates = [...new Set(input.selfNetworks)].filter((name) => !excluded.has(name));
  if (candidates.length === 0) {
    throw new LabelwiseError(
      'ANCHOR_NO_SHARED_NETWORK',
      `the anchor has no network to reach backends on (attached: ${input.selfNetworks.map((n) => quote(n)).join(', ') || 'none'}; outside: ${input.exclude.map((n) => quote(n)).join(', ') || 'none'})`,
      { hint: 'attach the anchor to the bridge its backends use, besides the outside network' },
    );
  }
  if (input.locked !== undefined && candidates.includes(input.locked)) {
    return { network: input.locked, backends: counts.get(input.locked) ?? 0, lock: true };
  }
  const ranked = candidates.sort((a, b) => {
    const byCount = (counts.get(b) ?? 0) - (counts.get(a) ?? 0);
    if (byCount !== 0) return byCount;
    // anchord matches "transit" case-insensitively (sharednet containsFold).
    const byTransit =
      Number(b.toLowerCase().includes('transit')) - Number(a.toLowerCase().includes('transit'));
    if (byTransit !== 0) return byTransit;
    return compareText(a, b);
  });
  const network = ranked[0] as string;
  const backends = counts.get(network) ?? 0;
  return { network, backends, lock: backends > 0 };
}

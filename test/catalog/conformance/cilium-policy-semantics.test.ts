// Cilium's policy semantics as recorded cases: each builds endpoints and policies, computes the
// flows with the reachability model and compares the open ports pair by pair.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  podIdentity,
  reservedIdentity,
  FQDN_KEY,
} from '../../../src/catalog/conformance/cilium-labels.js';
import { parsePolicy } from '../../../src/catalog/conformance/cilium-policy.js';
import type { PortRange } from '../../../src/catalog/conformance/cilium-policy.js';
import type { Endpoint } from '../../../src/catalog/conformance/endpoints.js';
import { formatPorts } from '../../../src/catalog/conformance/port-sets.js';
import { reachabilityOf } from '../../../src/catalog/conformance/reachability.js';
import type { KubeObject } from '../../../src/catalog/index.js';

interface CaseEndpoint {
  id: string;
  namespace: string;
  labels?: Record<string, string>;
  catalog: boolean;
  namedPorts?: Record<string, PortRange>;
  reserved?: string;
  host?: string;
  /** An outside address block: `world` plus its dual-stack family identity. */
  cidr?: string;
}
interface Case {
  name: string;
  source: { file: string; test: string; upstream: string };
  endpoints: CaseEndpoint[];
  policies: KubeObject[];
  expect: Record<string, string>;
}

const { cases } = JSON.parse(
  readFileSync(new URL('./cilium-policy-semantics.json', import.meta.url), 'utf8'),
) as { cases: Case[] };

function endpoint(e: CaseEndpoint): Endpoint {
  if (e.cidr !== undefined)
    return {
      id: e.id,
      service: undefined,
      role: 'world',
      what: e.id,
      labels: reservedIdentity('world', {
        [e.cidr.includes(':') ? 'reserved:world-ipv6' : 'reserved:world-ipv4']: '',
      }),
      namedPorts: new Map(),
      cidr: e.cidr,
    };
  const labels =
    e.reserved !== undefined
      ? reservedIdentity(e.reserved, e.host === undefined ? {} : { [FQDN_KEY]: e.host })
      : podIdentity(e.labels ?? {}, e.namespace);
  return {
    id: e.id,
    service: e.catalog ? e.namespace : undefined,
    role: e.reserved !== undefined ? 'external' : 'workload',
    what: e.id,
    labels,
    namedPorts: new Map(Object.entries(e.namedPorts ?? {})),
    ...(e.host === undefined ? {} : { host: e.host }),
  };
}

test('the recorded cases name their upstream source', () => {
  assert.ok(cases.length >= 15, String(cases.length));
  for (const c of cases) {
    assert.ok(c.source.file.length > 0 && c.source.test.length > 0, c.name);
    assert.ok(Object.keys(c.expect).length > 0, c.name);
  }
});

for (const c of cases) {
  test(`cilium semantics: ${c.name} (${c.source.file})`, () => {
    const reach = reachabilityOf(c.endpoints.map(endpoint), c.policies.map(parsePolicy));
    for (const policy of reach.policies) assert.deepEqual(policy.problems, [], policy.name);
    const flows = new Map(
      reach.flows.map((f) => [`${f.from.id}>${f.to.id}`, formatPorts(f.ports)]),
    );
    for (const [pair, ports] of Object.entries(c.expect))
      assert.equal(flows.get(pair) ?? '', ports, pair);
  });
}

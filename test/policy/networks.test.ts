// CIDR and identity primitives: strict address forms, containment, identity patterns.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileIdentities, identityMatches, identityProblem } from '../../src/policy/identity.js';
import { cidrContains, cidrCovers, parseAddress, parseCidr } from '../../src/policy/networks.js';

describe('parseCidr and parseAddress', () => {
  const valid = [
    '10.0.0.0/8',
    '0.0.0.0/0',
    '192.168.1.1',
    'fd00::/8',
    '::/0',
    '::1/128',
    '2001:db8::1',
  ];
  const invalid = [
    '10.0.0.0/33',
    '010.0.0.0/8',
    '10.0.0/8',
    '0x7f.0.0.1',
    '10.0.0.0/',
    '10.0.0.0/-1',
    'fd00::/129',
    'nonsense',
    '',
    '1.2.3.4/08x',
  ];
  for (const text of valid) it(`accepts ${text}`, () => assert.ok(parseCidr(text)));
  for (const text of invalid)
    it(`refuses ${JSON.stringify(text)}`, () => assert.equal(parseCidr(text), undefined));
  it('host bits are masked off', () => {
    const c = parseCidr('10.1.2.3/8');
    assert.ok(c && cidrContains(c, parseAddress('10.200.0.1') ?? assert.fail()));
  });
  it('families never mix; IPv4-mapped addresses are IPv4', () => {
    const v4 = parseCidr('0.0.0.0/0') ?? assert.fail();
    const v6 = parseCidr('::/0') ?? assert.fail();
    assert.equal(cidrContains(v4, parseAddress('fd00::1') ?? assert.fail()), false);
    assert.equal(cidrContains(v6, parseAddress('10.0.0.1') ?? assert.fail()), false);
    assert.equal(cidrContains(v4, parseAddress('::ffff:10.0.0.1') ?? assert.fail()), true);
  });
  it('coverage', () => {
    const outer = parseCidr('10.0.0.0/8') ?? assert.fail();
    assert.equal(cidrCovers(outer, parseCidr('10.2.0.0/16') ?? assert.fail()), true);
    assert.equal(cidrCovers(outer, parseCidr('11.0.0.0/16') ?? assert.fail()), false);
    assert.equal(cidrCovers(parseCidr('10.2.0.0/16') ?? assert.fail(), outer), false);
    assert.equal(
      cidrCovers(parseCidr('fd00::/8') ?? assert.fail(), parseCidr('fd12:3::/32') ?? assert.fail()),
      true,
    );
  });
});

describe('identity patterns', () => {
  const rows: [string, string | undefined][] = [
    ['*', undefined],
    ['*.ns.serviceaccount.identity.linkerd.cluster.local', undefined],
    ['web.ns.serviceaccount.identity.linkerd.cluster.local', undefined],
    ['spiffe://example.org/ns/prod/sa/api', undefined],
    ['web.*.cluster.local', 'may use "*" only as a whole first label'],
    ['*web.cluster.local', 'may use "*" only as a whole first label'],
    ['Web.Cluster.Local', 'not a DNS-like identity'],
    ['spiffe://', 'trust domain is missing'],
    // Linkerd's admission (runtime/src/validation.rs): no dot, empty or trailing segments.
    ['spiffe://example.org/ns/../sa', 'dot segments'],
    ['spiffe://example.org/ns/./sa', 'dot segments'],
    ['spiffe://example.org//sa', 'empty segments'],
    ['spiffe://example.org/sa/', 'trailing slash'],
    ['spiffe://example.org/path?query=', 'segment characters'],
    ['', 'not a DNS-like identity'],
  ];
  for (const [pattern, problem] of rows) {
    it(`${JSON.stringify(pattern)} ${problem === undefined ? 'is valid' : 'is refused'}`, () => {
      const got = identityProblem(pattern);
      if (problem === undefined) assert.equal(got, undefined);
      else assert.ok(got?.includes(problem), got);
    });
  }
  it('matching rules', () => {
    const m = compileIdentities(['*.b.c', 'exact.x', 'spiffe://td/a']);
    assert.equal(identityMatches(m, 'a.b.c'), true);
    assert.equal(identityMatches(m, 'b.c'), false);
    assert.equal(identityMatches(m, 'ab.c'), false);
    assert.equal(identityMatches(m, 'exact.x'), true);
    assert.equal(identityMatches(m, 'spiffe://td/a'), true);
    assert.equal(identityMatches(m, 'spiffe://td/a.b.c'), false);
    assert.equal(identityMatches(compileIdentities(['*']), 'spiffe://td/a'), false);
  });
});

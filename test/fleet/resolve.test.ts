// Resolution (spec: "Resolution of host H"): layer selection, substitution, merge rules with
// provenance and conflicts, merged-resource checks. Each test loads YAML through the real loader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelwiseError } from '../../src/base/errors.js';
import { hostLabels, manifestJson, prepareFleet, resolveHost } from '../../src/fleet/index.js';
import type { HostDoc, ResourceDoc } from '../../src/fleet/model.js';
import { resolveResource } from '../../src/fleet/resolve/resolve-resource.js';
import { retainedEntry } from '../../src/fleet/resolve/retained.js';
import { FLEET, doc, errorsOf, fleetOf, host, layer, resolveIn } from './helpers.js';

const hosts = {
  'hosts.yaml': [
    host('web-001', { environment: 'production', site: 'london', role: 'web' }),
    host('db-001', { environment: 'production', site: 'frankfurt', role: 'database' }),
  ],
};

test('hosts: an unknown host is an error naming it', () => {
  const prepared = prepareFleet(fleetOf({ 'fleet.yaml': FLEET, ...hosts }));
  assert.throws(
    () => resolveHost(prepared, 'web-999'),
    (e: unknown) =>
      e instanceof LabelwiseError &&
      e.code === 'FLEET_UNKNOWN_HOST' &&
      e.message === 'no Host document named "web-999" in this fleet',
  );
});

test('hosts: a host whose document has errors is named as such, not as unknown', () => {
  const prepared = prepareFleet(
    fleetOf({ 'fleet.yaml': FLEET, 'hosts.yaml': host('web-001', { 'datum/x': 'y' }) }),
  );
  assert.throws(
    () => resolveHost(prepared, 'web-001'),
    (e: unknown) =>
      e instanceof LabelwiseError &&
      e.code === 'FLEET_INVALID_HOST' &&
      e.source.file === 'hosts.yaml',
  );
});

test('hosts: labels are the declared ones plus datum/host', () => {
  const m = resolveIn({ 'fleet.yaml': FLEET, ...hosts }, 'web-001');
  assert.deepEqual(
    { ...m.labels },
    { environment: 'production', site: 'london', role: 'web', 'datum/host': 'web-001' },
  );
});

test('layers: layers are selected in discovery order with their reasons', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'base/l.yaml': layer('base', 0),
      'web/l.yaml': layer('role-web', 30, '  labels:\n    role: web\n'),
      'sites/l.yaml': layer('sites', 20, '  oneOf:\n    site: [london, frankfurt]\n'),
      'db/l.yaml': layer('role-db', 30, '  labels:\n    role: database\n'),
      'one/l.yaml': layer('only-web-001', 100, '  labels:\n    datum/host: web-001\n'),
      'not/l.yaml': layer(
        'not-legacy',
        5,
        '  noneOf:\n    tier: [legacy]\n  has:\n    - site\n  missing:\n    - decommissioned\n',
      ),
    },
    'web-001',
  );
  assert.deepEqual(
    m.layers.map((l) => [l.name, l.precedence, l.reasons]),
    [
      ['base', 0, ['every host']],
      ['not-legacy', 5, ['missing decommissioned', 'has site', 'tier!=legacy']],
      ['sites', 20, ['site in [frankfurt london]']],
      ['role-web', 30, ['role=web']],
      ['only-web-001', 100, ['datum/host=web-001']],
    ],
  );
});

const pkg = (name: string, body: string): string => doc('Package', name, `desired:\n${body}`);
const file = (name: string, body: string, extra = ''): string =>
  doc('File', name, `${extra}desired:\n${body}`);

test('merge: maps merge key by key; the higher layer wins; provenance keeps displaced values newest first', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'a/l.yaml': [
        layer('role-web', 10),
        file('nginx-config', '  path: /etc/nginx.conf\n  mode: "0640"\n  owner: root\n'),
      ],
      'b/l.yaml': [layer('site-london', 20), file('nginx-config', '  mode: "0644"\n')],
      'c/l.yaml': [
        layer('host-web-001', 30, '  labels:\n    datum/host: web-001\n'),
        file('nginx-config', '  mode: "0600"\n'),
      ],
    },
    'web-001',
  );
  assert.deepEqual(m.problems, []);
  const r = m.resources.find((x) => x.ref === 'File[nginx-config]');
  assert.ok(r);
  assert.deepEqual({ ...r.desired }, { mode: '0600', owner: 'root', path: '/etc/nginx.conf' });
  assert.deepEqual(r.layers, ['role-web', 'site-london', 'host-web-001']);
  assert.deepEqual(r.provenance.mode, {
    layer: 'host-web-001',
    value: '0600',
    displaced: [
      { layer: 'site-london', value: '0644' },
      { layer: 'role-web', value: '0640' },
    ],
  });
  assert.equal(r.provenance.owner?.layer, 'role-web');
  assert.equal(r.target, '/etc/nginx.conf');
});

test('merge: lists are replaced, never appended', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'a/l.yaml': [
        layer('a', 0),
        doc('User', 'ops', 'desired:\n  state: present\n  groups: [adm, sudo]\n'),
      ],
      'b/l.yaml': [layer('b', 10), doc('User', 'ops', 'desired:\n  groups: [docker]\n')],
    },
    'web-001',
  );
  assert.deepEqual(m.resources[0]?.desired.groups, ['docker']);
});

test('merge: edge lists are set unions: a higher layer cannot remove a dependency', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'a/l.yaml': [
        layer('a', 0),
        pkg('x', '  state: present\n'),
        pkg('y', '  state: present\n'),
        doc(
          'Service',
          's',
          'requires:\n  - Package[x]\ndesired:\n  state: running\n  enabled: true\n',
        ),
      ],
      'b/l.yaml': [
        layer('b', 10),
        doc(
          'Service',
          's',
          'requires:\n  - Package[y]\n  - Package[x]\ndesired:\n  enabled: false\n',
        ),
      ],
    },
    'web-001',
  );
  assert.deepEqual(m.problems, []);
  const s = m.resources.find((r) => r.ref === 'Service[s]');
  assert.deepEqual(s?.requires, ['Package[x]', 'Package[y]']);
  assert.deepEqual(
    { ...s?.edgeLayers },
    { 'requires:Package[x]': 'a', 'requires:Package[y]': 'b' },
  );
  assert.equal(s?.desired.enabled, false);
});

test('merge: equal values at equal precedence are not a conflict ("1" equals 1)', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'a/l.yaml': [layer('a', 10), doc('Sysctl', 'vm.swappiness', 'desired:\n  value: 1\n')],
      'b/l.yaml': [layer('b', 10), doc('Sysctl', 'vm.swappiness', 'desired:\n  value: "1"\n')],
    },
    'web-001',
  );
  assert.deepEqual(m.problems, []);
});

test('merge: different values at equal precedence conflict, naming both values and layers', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'a/l.yaml': [layer('role-web', 20), file('nginx-config', '  path: /etc/n\n  mode: "0640"\n')],
      'b/l.yaml': [layer('site-london', 20), file('nginx-config', '  mode: "0600"\n')],
    },
    'web-001',
  );
  assert.deepEqual(errorsOf(m.problems), ['b/l.yaml:10 FLEET_CONFLICT']);
  assert.equal(
    m.problems[0]?.message,
    'conflicting values for File[nginx-config].mode: "0640" from role-web and "0600" from site-london (both precedence 20)',
  );
  assert.equal(m.problems[0]?.host, 'web-001');
});

test('merge: a conflict is recorded even when a higher layer overrides the field', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'a/l.yaml': [layer('a', 20), file('f', '  path: /f\n  mode: "0640"\n')],
      'b/l.yaml': [layer('b', 20), file('f', '  mode: "0600"\n')],
      'c/l.yaml': [layer('c', 30), file('f', '  mode: "0644"\n')],
    },
    'web-001',
  );
  assert.deepEqual(errorsOf(m.problems), ['b/l.yaml:10 FLEET_CONFLICT']);
  assert.equal(m.resources[0]?.desired.mode, '0644');
});

test('merge: conflicts are judged against the layer that set the field', () => {
  // a (10) sets 0640, b (20) overrides to 0600, c (20) agrees with b: no conflict with a.
  const ok = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'a/l.yaml': [layer('a', 10), file('f', '  path: /f\n  mode: "0640"\n')],
      'b/l.yaml': [layer('b', 20), file('f', '  mode: "0600"\n')],
      'c/l.yaml': [layer('c', 20), file('f', '  mode: "0600"\n')],
    },
    'web-001',
  );
  assert.deepEqual(ok.problems, []);
  const bad = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'a/l.yaml': [layer('a', 10), file('f', '  path: /f\n  mode: "0640"\n')],
      'b/l.yaml': [layer('b', 20), file('f', '  mode: "0600"\n')],
      'c/l.yaml': [layer('c', 20), file('f', '  mode: "0640"\n')],
    },
    'web-001',
  );
  assert.match(bad.problems[0]?.message ?? '', /"0600" from b and "0640" from c/);
});

test('merge: the same reference twice in one layer is an error', () => {
  const fleet = fleetOf({
    'fleet.yaml': FLEET,
    ...hosts,
    'a/l.yaml': [layer('a', 0), pkg('x', '  state: present\n'), pkg('x', '  state: absent\n')],
  });
  assert.deepEqual(errorsOf(fleet.problems), ['a/l.yaml:12 FLEET_DUPLICATE_REFERENCE']);
});

test('placeholders: host and labels substituted, secrets verbatim and never recorded', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'a/l.yaml': [
        layer('base', 0),
        file(
          'motd',
          '  path: /etc/motd\n  content: "{{host}} in {{ labels.site }}, key {{ secrets.api }}"\n',
        ),
      ],
    },
    'web-001',
  );
  assert.deepEqual(m.problems, []);
  const r = m.resources[0];
  assert.equal(r?.desired.content, 'web-001 in london, key {{ secrets.api }}');
  assert.deepEqual(r?.substitutions, [
    { field: 'content', placeholder: '{{ host }}', value: 'web-001', layer: 'base' },
    { field: 'content', placeholder: '{{ labels.site }}', value: 'london', layer: 'base' },
  ]);
});

test('placeholders: an undeclared label is an error naming the label and the host', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'a/l.yaml': [
        layer('base', 0),
        file('motd', '  path: /etc/motd\n  content: "{{ labels.rack }}"\n'),
      ],
    },
    'web-001',
  );
  assert.deepEqual(errorsOf(m.problems), ['a/l.yaml:11 FLEET_UNDECLARED_LABEL']);
  assert.match(m.problems[0]?.message ?? '', /label "rack"/);
  assert.equal(m.problems[0]?.host, 'web-001');
});

test('placeholders: one pass only, substituted text is not rescanned', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      'hosts.yaml': doc('Host', 'h', 'labels:\n  a: x\n'),
      'a/l.yaml': [
        layer('base', 0),
        file('f', '  path: /f\n  content: "{{ labels.a }}{{ host }}"\n'),
      ],
    },
    'h',
  );
  assert.equal(m.resources[0]?.desired.content, 'xh');
});

test('placeholders: substituted values are checked like written ones', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      'hosts.yaml': doc('Host', 'h', 'labels:\n  dir: etc\n'),
      'a/l.yaml': [layer('base', 0), file('f', '  path: "{{ labels.dir }}/x"\n')],
    },
    'h',
  );
  assert.deepEqual(errorsOf(m.problems), ['a/l.yaml:10 FLEET_INVALID_FIELD']);
});

test('files: source and template resolve relative to the layer that set them', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'layers/base/l.yaml': [
        layer('base', 0),
        file('a', '  path: /a\n  source: files/a.conf\n'),
        file('b', '  path: /b\n  template: t/b.tmpl\n'),
      ],
      'layers/web/l.yaml': [
        layer('web', 10),
        file('b', '  template: ./t/web-b.tmpl\n  mode: "0600"\n'),
      ],
    },
    'web-001',
  );
  assert.deepEqual(m.problems, []);
  assert.equal(
    m.resources.find((r) => r.ref === 'File[a]')?.desired.source,
    'layers/base/files/a.conf',
  );
  assert.equal(
    m.resources.find((r) => r.ref === 'File[b]')?.desired.template,
    'layers/web/t/web-b.tmpl',
  );
});

// Merged-resource checks: one row per rule.
const checks: { name: string; desired: string; type?: string; code: string | undefined }[] = [
  {
    name: 'required fields are checked after merging',
    type: 'Package',
    desired: '  version: "1.2"\n',
    code: 'FLEET_INVALID_RESOURCE',
  },
  {
    name: 'Service needs state and enabled',
    type: 'Service',
    desired: '  state: running\n',
    code: 'FLEET_INVALID_RESOURCE',
  },
  {
    name: 'File content sources are exclusive',
    desired: '  path: /f\n  content: x\n  source: files/f\n',
    code: 'FLEET_INVALID_RESOURCE',
  },
  {
    name: 'an absent File sets no content, owner or mode',
    desired: '  path: /f\n  state: absent\n  owner: root\n',
    code: 'FLEET_INVALID_RESOURCE',
  },
  {
    name: 'an absent File with only a path is fine',
    desired: '  path: /f\n  state: absent\n',
    code: undefined,
  },
  {
    name: 'setuid needs allowPrivileged',
    desired: '  path: /usr/local/bin/x\n  mode: "4755"\n',
    code: 'FLEET_INVALID_RESOURCE',
  },
  {
    name: 'setgid needs allowPrivileged',
    desired: '  path: /srv/x\n  mode: "2755"\n',
    code: 'FLEET_INVALID_RESOURCE',
  },
  {
    name: 'world-writable under a system dir needs allowPrivileged',
    desired: '  path: /etc/x\n  mode: "0666"\n',
    code: 'FLEET_INVALID_RESOURCE',
  },
  {
    name: 'world-writable outside system dirs is fine',
    desired: '  path: /srv/shared/x\n  mode: "0666"\n',
    code: undefined,
  },
  {
    name: 'allowPrivileged: true permits setuid',
    desired: '  path: /usr/bin/x\n  mode: "4755"\n  allowPrivileged: true\n',
    code: undefined,
  },
  {
    name: 'Directory modes are checked too',
    type: 'Directory',
    desired: '  path: /etc/d\n  mode: "1777"\n',
    code: 'FLEET_INVALID_RESOURCE',
  },
  {
    name: 'Repository needs a signingKey',
    type: 'Repository',
    desired: '  id: r\n  url: http://x\n',
    code: 'FLEET_INVALID_RESOURCE',
  },
  {
    name: 'Repository may be unsigned: true',
    type: 'Repository',
    desired: '  id: r\n  url: https://r.example\n  unsigned: true\n',
    code: undefined,
  },
  {
    name: 'Repository may not have both',
    type: 'Repository',
    desired: '  id: r\n  url: https://r.example\n  unsigned: true\n  signingKey: /k\n',
    code: 'FLEET_INVALID_RESOURCE',
  },
  {
    name: 'File without a path has no target identity',
    desired: '  content: x\n',
    code: 'FLEET_MISSING_IDENTITY',
  },
  {
    name: 'Repository without an id has no target identity',
    type: 'Repository',
    desired: '  url: https://r.example\n  unsigned: true\n',
    code: 'FLEET_MISSING_IDENTITY',
  },
];
for (const row of checks) {
  test(`merge: merged resource: ${row.name}`, () => {
    const m = resolveIn(
      {
        'fleet.yaml': FLEET,
        ...hosts,
        'a/l.yaml': [layer('a', 0), doc(row.type ?? 'File', 'x', `desired:\n${row.desired}`)],
      },
      'web-001',
    );
    assert.deepEqual(
      m.problems.map((p) => p.code),
      row.code === undefined ? [] : [row.code],
      m.problems.map((p) => p.message).join('; '),
    );
  });
}

test('merged checks see fields from several layers (allowPrivileged set by a higher layer)', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'a/l.yaml': [layer('a', 0), file('x', '  path: /usr/bin/x\n  mode: "4755"\n')],
      'b/l.yaml': [layer('b', 10), file('x', '  allowPrivileged: true\n')],
    },
    'web-001',
  );
  assert.deepEqual(m.problems, []);
});

/** Two web hosts on different sites and a db host: the memo is shared by some and not others. */
function threeHosts(): string[] {
  return [
    host('web-001', { role: 'web', site: 'london' }),
    host('web-002', { role: 'web', site: 'paris' }),
    host('db-001', { role: 'db', site: 'london' }),
  ];
}

test('the memoized path (validate) and the provenance path (explain) give the same manifests', () => {
  const fleet = fleetOf({
    'fleet.yaml': FLEET,
    'hosts.yaml': threeHosts(),
    'base/l.yaml': [
      layer('base', 0),
      doc(
        'File',
        'motd',
        'desired:\n  path: /etc/motd\n  content: "{{ host }} {{ labels.site }}"\n',
      ),
      doc('Package', 'a', 'requires:\n  - Package[missing]\ndesired:\n  state: present\n'),
      doc('File', 'x', 'desired:\n  path: /etc/x\n'),
    ],
    'web/l.yaml': [
      layer('web', 10, '  labels:\n    role: web\n'),
      doc('File', 'x', 'desired:\n  mode: "0640"\n'),
      doc('File', 'y', 'requires:\n  - File[z]\ndesired:\n  path: /etc/x\n'),
      doc('File', 'z', 'requires:\n  - File[y]\ndesired:\n  path: /etc/z\n'),
    ],
    'web2/l.yaml': [
      layer('web2', 10, '  labels:\n    role: web\n'),
      doc('File', 'x', 'desired:\n  mode: "0600"\n'),
    ],
  });
  for (const provenanceFirst of [true, false]) {
    const prepared = prepareFleet(fleet);
    for (const h of fleet.hosts) {
      const a = resolveHost(prepared, h.name, { provenance: provenanceFirst });
      const b = resolveHost(prepared, h.name, { provenance: !provenanceFirst });
      assert.equal(a.digest, b.digest);
      assert.deepEqual(
        JSON.parse(JSON.stringify(manifestJson(a))),
        JSON.parse(JSON.stringify(manifestJson(b))),
      );
      assert.deepEqual(a.problems, b.problems);
    }
  }
  const web = resolveHost(prepareFleet(fleet), 'web-001', { provenance: false });
  assert.deepEqual(web.problems.map((p) => p.code).sort(), [
    'FLEET_CONFLICT',
    'FLEET_DEPENDENCY_CYCLE',
    'FLEET_DUPLICATE_TARGET',
    'FLEET_UNRESOLVED_REFERENCE',
  ]);
});

test('provenance from the memo, after other hosts, equals a fold for the host alone', () => {
  const fleet = fleetOf({
    'fleet.yaml': FLEET,
    'hosts.yaml': threeHosts(),
    'base/l.yaml': [
      layer('base', 0),
      doc('File', 'motd', 'desired:\n  path: /etc/motd\n  content: "{{ host }}"\n'),
      doc('File', 'x', 'desired:\n  path: /etc/x\n  mode: "0644"\n'),
      doc('Package', 'a', 'desired:\n  state: present\n'),
    ],
    'web/l.yaml': [
      layer('web', 10, '  labels:\n    role: web\n'),
      doc('File', 'x', 'desired:\n  mode: "0640"\n'),
      doc('File', 'motd', 'desired:\n  content: "web {{ labels.site }}"\n'),
    ],
    'db/l.yaml': [
      layer('db', 10, '  labels:\n    role: db\n'),
      doc('File', 'x', 'desired:\n  mode: "0600"\n'),
    ],
  });
  const shared = prepareFleet(fleet);
  // Every host once, so each one's second resolution reads what the others left in the memo.
  for (const h of fleet.hosts) resolveHost(shared, h.name);
  for (const h of [...fleet.hosts].reverse()) {
    const warm = resolveHost(shared, h.name);
    const alone = resolveHost(prepareFleet(fleet), h.name);
    assert.deepEqual(warm, alone);
    assert.ok(warm.resources.some((r) => Object.keys(r.provenance).length > 0));
  }
  const web = resolveHost(shared, 'web-002');
  const x = web.resources.find((r) => r.ref === 'File[x]');
  assert.deepEqual(x?.provenance.mode, {
    layer: 'web',
    value: '0640',
    displaced: [{ layer: 'base', value: '0644' }],
  });
  const motd = web.resources.find((r) => r.ref === 'File[motd]');
  assert.equal(motd?.desired.content, 'web paris');
});

test('merge: restartOn and reloadOn from different layers are an error on the merged resource', () => {
  const m = resolveIn(
    {
      'fleet.yaml': FLEET,
      ...hosts,
      'a/l.yaml': [
        layer('a', 0),
        pkg('x', '  state: present\n'),
        doc(
          'Service',
          's',
          'restartOn:\n  - Package[x]\ndesired:\n  state: running\n  enabled: true\n',
        ),
      ],
      'b/l.yaml': [
        layer('b', 10),
        doc('Service', 's', 'reloadOn:\n  - Package[x]\ndesired:\n  enabled: true\n'),
      ],
    },
    'web-001',
  );
  assert.deepEqual(
    m.problems.map((p) => p.code),
    ['FLEET_RESTART_AND_RELOAD'],
  );
});

test('the memo keeps a deep copy of a fold, equal to it, prototypes included', () => {
  const fleet = fleetOf({
    'fleet.yaml': FLEET,
    'hosts.yaml': threeHosts(),
    'base/l.yaml': [
      layer('base', 0),
      doc(
        'Repository',
        'r',
        'requires:\n  - Package[a]\n  - Repository[r]\nrestartOn:\n  - File[x]\ndesired:\n  id: r\n  url: http://a.example\n  components:\n    - main\n',
      ),
    ],
    'web/l.yaml': [
      layer('web', 10, '  labels:\n    role: web\n'),
      doc('Repository', 'r', 'desired:\n  components:\n    - main\n    - contrib\n  priority: 3\n'),
    ],
  });
  const contribs = fleet.layers.map((l) => ({
    layer: l,
    doc: l.resources.find((d) => d.ref === 'Repository[r]') as ResourceDoc,
  }));
  const h = fleet.hosts[0] as HostDoc;
  const fold = resolveResource(contribs, h, hostLabels(h), true, 0);
  assert.ok(Object.keys(fold.resource.provenance).length > 0);
  assert.ok(fold.problems.length > 0 && fold.edges.length > 0);
  const kept = retainedEntry(fold);
  assert.deepStrictEqual(kept, fold);
  assert.deepStrictEqual(Object.keys(kept), Object.keys(fold));
  assert.deepStrictEqual(Object.keys(kept.resource), Object.keys(fold.resource));
  // Nothing reachable from the copy is an object of the fold's.
  const objects = (value: unknown, into: Set<unknown>): Set<unknown> => {
    if (typeof value === 'object' && value !== null) {
      into.add(value);
      for (const child of Object.values(value)) objects(child, into);
    }
    return into;
  };
  const foldObjects = objects(fold, new Set());
  for (const o of objects(kept, new Set())) assert.ok(!foldObjects.has(o));
});

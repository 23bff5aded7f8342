// Workloads as the pods they create: each kind's pod template is read as one pod named
// `<short>/<name>`, namespace annotations reach it as the injector applies them, and problems
// inside a template point at their full path and line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizePodRef } from '../../src/policy/resources/read-workloads.js';
import { ID, ask, load, model, server } from './helpers.js';

function workload(kind: string, name: string, extra = ''): string {
  const api = kind === 'Job' || kind === 'CronJob' ? 'batch/v1' : 'apps/v1';
  const pod = `metadata:
      labels: { app: ${name} }
      annotations: { config.linkerd.io/opaque-ports: "9000" }
    spec:
      serviceAccountName: ${name}
      containers:
        - name: main
          ports: [{ name: http, containerPort: 8080 }, { containerPort: 9000 }]
          readinessProbe: { httpGet: { path: /ready, port: http } }`;
  const template =
    kind === 'CronJob'
      ? `  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        ${pod.replace(/\n/g, '\n    ')}`
      : `  template:
    ${pod}`;
  return `
apiVersion: ${api}
kind: ${kind}
metadata:
  name: ${name}
  namespace: ns
  labels: { owner: not-copied }
  annotations: { config.linkerd.io/default-inbound-policy: all-unauthenticated }
spec:
${extra}${template}
---`;
}

const NAMESPACE = `
apiVersion: v1
kind: Namespace
metadata:
  name: ns
  annotations: { config.linkerd.io/default-inbound-policy: deny }
---`;

describe('workloads', () => {
  it('every workload kind becomes one pod named <short>/<name>', () => {
    const m = model(
      [
        workload('Deployment', 'web', '  replicas: 3\n'),
        workload('StatefulSet', 'db'),
        workload('DaemonSet', 'agent'),
        workload('ReplicaSet', 'old'),
        workload('Job', 'migrate'),
        workload('CronJob', 'report'),
      ].join(''),
    );
    assert.deepEqual(
      m.podList.map((p) => `${p.meta.namespace}/${p.meta.name}`),
      [
        'ns/cronjob/report',
        'ns/deploy/web',
        'ns/ds/agent',
        'ns/job/migrate',
        'ns/rs/old',
        'ns/sts/db',
      ],
    );
    const web = m.pod('ns', 'deploy/web');
    assert.ok(web !== undefined);
    assert.deepEqual({ ...web.meta.labels }, { app: 'web' }, 'template labels, not the workload’s');
    assert.deepEqual(
      web.ports.map((p) => p.port),
      [8080, 9000],
    );
    assert.deepEqual(
      web.probes.map((p) => p.path),
      ['/ready'],
    );
    // The CronJob's template sits under jobTemplate.
    assert.deepEqual({ ...m.pod('ns', 'cronjob/report')?.meta.labels }, { app: 'report' });
  });

  it('a Server selects the workload by its template labels; --pod names it', () => {
    const m = model(
      workload('Deployment', 'web') + server('web-http', { access: 'all-authenticated' }),
    );
    const d = ask(m, { pod: 'ns/deploy/web', path: '/', identity: ID('client') });
    assert.equal(d.decision, 'allow');
    assert.equal(d.server, 'ns/web-http');
    assert.equal(ask(m, { pod: normalizePodRef('ns/deployment/web'), path: '/' }).decision, 'deny');
  });

  it('namespace annotations apply to the pods; the workload’s own annotations do not', () => {
    const m = model(NAMESPACE + workload('Deployment', 'web'));
    const d = ask(m, { pod: 'ns/deploy/web', path: '/x' });
    assert.equal(d.server, 'default:deny');
    assert.match(d.trace[0] ?? '', /on the namespace/);
    // The template's own annotation (opaque port 9000) is the pod's.
    assert.equal(m.portPolicy(m.pod('ns', 'deploy/web')!, 9000).protocol, 'opaque');
  });

  it('problems inside the template carry the full path and the line in the file', () => {
    const { problems } = load(`apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: ns }
spec:
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
        - name: main
          ports:
            - containerPort: 70000
`);
    assert.deepEqual(
      problems.map((p) => [p.code, p.line, p.path, p.object]),
      [
        [
          'POLICY_INVALID_PORT',
          11,
          'spec.template.spec.containers[0].ports[0].containerPort',
          'Deployment ns/web',
        ],
      ],
    );
  });

  it('a workload without a template is an error, and is left out', () => {
    const { model: m, problems } = load(`apiVersion: apps/v1
kind: StatefulSet
metadata: { name: db, namespace: ns }
spec: { replicas: 1 }
`);
    assert.deepEqual(
      problems.map((p) => [p.code, p.path]),
      [['POLICY_MISSING_FIELD', 'spec.template']],
    );
    assert.equal(m.podList.length, 0);
  });

  it('other apiVersions of a workload kind are not read', () => {
    const { model: m, problems } = load(
      workload('Deployment', 'web').replace('apps/v1', 'extensions/v1beta1'),
    );
    assert.equal(m.podList.length, 0);
    assert.deepEqual(problems, []);
  });

  it('normalizePodRef accepts kubectl’s names for workload kinds', () => {
    for (const [ref, want] of [
      ['booksapp/deploy/authors', 'booksapp/deploy/authors'],
      ['booksapp/deployment/authors', 'booksapp/deploy/authors'],
      ['booksapp/Deployments/authors', 'booksapp/deploy/authors'],
      ['booksapp/statefulset/db', 'booksapp/sts/db'],
      ['booksapp/cj/report', 'booksapp/cronjob/report'],
      ['booksapp/authors-0', 'booksapp/authors-0'],
      ['booksapp/pod/x', 'booksapp/pod/x'],
      ['web', 'web'],
    ])
      assert.equal(normalizePodRef(ref as string), want, ref);
  });
});

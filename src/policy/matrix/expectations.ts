/**
 * Expected reachabilities for CI (`labelwise policy matrix DIR --expect FILE`), conftest-style:
 * a YAML list of one-line facts checked against the matrix, e.g.
 *
 * ```yaml
 * - { client: sa:booksapp/web, server: booksapp/authors-http, request: DELETE /authors/1, expect: deny }
 * - { client: sa:booksapp/books, pod: booksapp/deploy/authors, route: authors-modify-route, expect: allow }
 * ```
 *
 * `client` is a matrix column id. The rows are chosen by `server` (`ns/name`) or `pod`
 * (`ns/name`, with an optional `port`), narrowed by `route` (a route name) or `request`
 * (`METHOD /path`: the route that request hits, per Server and port). `expect` is `allow` (every
 * chosen row admits the whole column), `deny` (no chosen row admits any of it; a request no route
 * matches counts as unreachable too), `some`, or `404` (the request hits no route). An
 * expectation that chooses no row fails: a typo never passes silently.
 */
import { parseYamlDocument } from '../../base/index.js';
import type { Diagnostic } from '../../base/index.js';
import type { PolicyModel } from '../compile/model.js';
import { makeRequest } from '../routes/request.js';
import { normalizePodRef } from '../resources/read-workloads.js';
import type { MatrixRow, PolicyMatrix, Reachability } from './matrix.js';

export type Expected = Reachability | '404';

export interface Expectation {
  readonly client: string;
  readonly server?: string;
  readonly pod?: string;
  readonly port?: number;
  readonly route?: string;
  readonly request?: { readonly method: string; readonly path: string };
  readonly expect: Expected;
  /** Where it is written, for the diagnostic. */
  readonly file: string;
  readonly line: number;
  /** The expectation as one line, for messages. */
  readonly text: string;
}

const EXPECTED: readonly string[] = ['allow', 'deny', 'some', '404'];
const FIELDS: readonly string[] = ['client', 'server', 'pod', 'port', 'route', 'request', 'expect'];

function invalid(file: string, line: number, message: string, hint?: string): Diagnostic {
  return {
    severity: 'error',
    code: 'POLICY_EXPECTATION_INVALID',
    file,
    line,
    message,
    ...(hint === undefined ? {} : { hint }),
  };
}

/** One entry of an expectations file, or why it is refused. */
function readEntry(
  entry: unknown,
  i: number,
  file: string,
  line: number,
): Expectation | { problem: string; hint?: string } {
  const fail = (problem: string, hint?: string): { problem: string; hint?: string } =>
    hint === undefined ? { problem } : { problem, hint };
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    return fail(`expectation ${i + 1} must be a mapping`);
  const e = entry as Record<string, unknown>;
  const unknown = Object.keys(e).filter((k) => !FIELDS.includes(k));
  if (unknown.length > 0)
    return fail(`unknown field ${JSON.stringify(unknown[0])}`, `fields: ${FIELDS.join(', ')}`);
  const str = (k: string): string | undefined =>
    typeof e[k] === 'string' ? (e[k] as string) : undefined;
  const client = str('client');
  if (client === undefined)
    return fail('client is required (a matrix column, e.g. sa:booksapp/web)');
  const expect = e.expect === 404 ? '404' : str('expect');
  if (expect === undefined || !EXPECTED.includes(expect))
    return fail(`expect must be one of ${EXPECTED.join(', ')}`);
  const server = str('server');
  const pod = str('pod');
  if ((server === undefined) === (pod === undefined))
    return fail('give exactly one of server (ns/name) or pod (ns/name)');
  const port = e.port;
  if (
    port !== undefined &&
    !(typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535)
  )
    return fail('port must be a number from 1 to 65535');
  let request: Expectation['request'];
  if (e.request !== undefined) {
    const m =
      typeof e.request === 'string' ? /^([A-Za-z]+)\s+(\/\S*)$/.exec(e.request.trim()) : null;
    if (m === null) return fail('request must look like "DELETE /authors/1"');
    request = { method: (m[1] as string).toUpperCase(), path: m[2] as string };
  }
  const route = str('route');
  if (route !== undefined && request !== undefined) return fail('give route or request, not both');
  if (expect === '404' && request === undefined) return fail('expect: 404 needs a request');
  const shown = [
    client,
    '→',
    server ?? `${pod ?? ''}${port === undefined ? '' : `:${String(port)}`}`,
    route === undefined ? '' : `route ${route}`,
    request === undefined ? '' : `${request.method} ${request.path}`,
  ]
    .filter((x) => x !== '')
    .join(' ');
  return {
    client,
    ...(server === undefined ? {} : { server }),
    ...(pod === undefined ? {} : { pod: normalizePodRef(pod) }),
    ...(typeof port === 'number' ? { port } : {}),
    ...(route === undefined ? {} : { route }),
    ...(request === undefined ? {} : { request }),
    expect: expect as Expected,
    file,
    line,
    text: shown,
  };
}

/** Reads an expectations file. Every bad entry is a diagnostic; good entries are kept. */
export function readExpectations(
  text: string,
  file: string,
): { expectations: Expectation[]; diagnostics: Diagnostic[] } {
  const { document, diagnostics } = parseYamlDocument(text, {
    file,
    code: 'POLICY_EXPECTATION_INVALID',
  });
  const expectations: Expectation[] = [];
  if (document === undefined) return { expectations, diagnostics };
  const list = document.value;
  if (!Array.isArray(list)) {
    diagnostics.push(
      invalid(
        file,
        document.locate([]).line,
        'an expectations file is a YAML list of expectations',
        '- { client: sa:ns/web, server: ns/api, request: DELETE /x, expect: deny }',
      ),
    );
    return { expectations, diagnostics };
  }
  list.forEach((entry: unknown, i) => {
    const line = document.locate([i]).line;
    const read = readEntry(entry, i, file, line);
    if ('problem' in read) diagnostics.push(invalid(file, line, read.problem, read.hint));
    else expectations.push(read);
  });
  return { expectations, diagnostics };
}

/** The outcome of one expectation against the matrix. */
export interface ExpectationResult {
  readonly expectation: Expectation;
  readonly ok: boolean;
  /** What was found, per chosen row: `<row id>: <reach> [via …]`, or why nothing was chosen. */
  readonly found: readonly string[];
}

function serverRows(matrix: PolicyMatrix, e: Expectation): MatrixRow[] {
  return matrix.rows.filter((row) => {
    if (e.server !== undefined) {
      const name = e.server;
      if (row.server !== name && `${row.namespace}/${row.server}` !== name) return false;
    }
    if (e.pod !== undefined && !row.pods.includes(e.pod)) return false;
    if (e.port !== undefined && row.port !== e.port) return false;
    return true;
  });
}

/** Checks every expectation; the results are in file order. Pure. */
export function checkExpectations(
  model: PolicyModel,
  matrix: PolicyMatrix,
  expectations: readonly Expectation[],
): ExpectationResult[] {
  return expectations.map((e) => {
    if (!matrix.clients.some((c) => c.id === e.client))
      return {
        expectation: e,
        ok: false,
        found: [`no client ${e.client} (clients: ${matrix.clients.map((c) => c.id).join(', ')})`],
      };
    let rows = serverRows(matrix, e);
    if (rows.length === 0) return { expectation: e, ok: false, found: ['no matrix row matches'] };
    const found: string[] = [];
    const outcomes: Expected[] = [];
    if (e.route !== undefined) rows = rows.filter((r) => r.route === e.route);
    if (e.request !== undefined) {
      // Per Server and port, the route the request hits on its first pod.
      const groups = new Map<string, MatrixRow[]>();
      for (const r of rows)
        groups.set(`${r.server}:${r.port}`, [...(groups.get(`${r.server}:${r.port}`) ?? []), r]);
      rows = [];
      for (const group of groups.values()) {
        const first = group[0] as MatrixRow;
        const slash = (first.pods[0] ?? '').indexOf('/');
        const pod = model.pod(
          (first.pods[0] ?? '').slice(0, slash),
          (first.pods[0] ?? '').slice(slash + 1),
        );
        if (pod === undefined) continue;
        const policy = model.portPolicy(pod, first.port, matrix.httpVersion);
        const hit =
          policy.protocol === 'opaque' || policy.protocol === 'TLS'
            ? undefined
            : policy.table.find(makeRequest(e.request), 'linkerd');
        const row =
          hit === null || hit === undefined
            ? undefined
            : group.find((r) => r.route === hit.route.name);
        if (row === undefined) {
          outcomes.push('404');
          found.push(
            `${first.server}:${first.port}: no route matches ${e.request.method} ${e.request.path} (404)`,
          );
        } else rows.push(row);
      }
    }
    for (const row of rows) {
      const cell = row.cells[e.client];
      if (cell === undefined) continue;
      outcomes.push(cell.reach);
      found.push(`${row.id}: ${cell.reach}${cell.via === undefined ? '' : ` via ${cell.via}`}`);
    }
    if (outcomes.length === 0)
      return { expectation: e, ok: false, found: ['no matrix row matches'] };
    const ok = outcomes.every((o) => o === e.expect || (e.expect === 'deny' && o === '404'));
    return { expectation: e, ok, found };
  });
}

/** Failed expectations as diagnostics (`POLICY_EXPECTATION_FAILED`, at the expectation's line). */
export function expectationDiagnostics(results: readonly ExpectationResult[]): Diagnostic[] {
  return results
    .filter((r) => !r.ok)
    .map((r) => ({
      severity: 'error' as const,
      code: 'POLICY_EXPECTATION_FAILED',
      file: r.expectation.file,
      line: r.expectation.line,
      message: `expected ${r.expectation.text}: ${r.expectation.expect}; found ${r.found.join('; ')}`,
      hint: 'labelwise policy matrix DIR --explain ROW --client CLIENT shows the trace of a cell',
    }));
}

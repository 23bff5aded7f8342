// `labelwise selector …` in-process through `run(argv, memoryIO())`: the DESIGN.md JSON shapes,
// exit codes, and errors (JSON on stdout under --json, one line with a caret otherwise).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(...argv: string[]): Promise<Outcome> {
  const io = memoryIO();
  const code = await run(['selector', ...argv], io);
  return { code, stdout: io.out, stderr: io.err };
}

/** Runs with --json and parses stdout (which must be exactly one JSON document). */
async function cliJson(
  ...argv: string[]
): Promise<{ code: number; json: unknown; stderr: string }> {
  const outcome = await cli(...argv, '--json');
  assert.ok(outcome.stdout.endsWith('\n'));
  return {
    code: outcome.code,
    json: JSON.parse(outcome.stdout) as unknown,
    stderr: outcome.stderr,
  };
}

test('parse --json: canonical form and requirements', async () => {
  const { code, json, stderr } = await cliJson('parse', 'tier in (web,api), !canary, x=');
  assert.equal(code, 0);
  assert.equal(stderr, '');
  assert.deepEqual(json, {
    canonical: '!canary,tier in (api,web),x in ()',
    requirements: [
      { key: 'canary', operator: 'DoesNotExist', values: [] },
      { key: 'tier', operator: 'In', values: ['api', 'web'] },
      { key: 'x', operator: 'In', values: [''] },
    ],
  });
});

test('parse --json: equality is In with one value; stable key order in the output', async () => {
  const { stdout } = await cli('parse', 'a!=1', '--json');
  assert.equal(
    stdout,
    '{\n  "canonical": "a!=1",\n  "requirements": [\n    {\n      "key": "a",\n      "operator": "NotIn",\n      "values": [\n        "1"\n      ]\n    }\n  ]\n}\n',
  );
});

test('parse --json of the empty selector', async () => {
  const { code, json } = await cliJson('parse', '');
  assert.equal(code, 0);
  assert.deepEqual(json, { canonical: '', requirements: [] });
});

test('parse --syntax equality / docker / match', async () => {
  assert.deepEqual(
    (await cliJson('parse', 'anchord.role = ldap-outpost, a=b=c', '--syntax', 'equality')).json,
    {
      canonical: 'a=b=c,anchord.role=ldap-outpost',
      requirements: [
        { key: 'a', operator: 'In', values: ['b=c'] },
        { key: 'anchord.role', operator: 'In', values: ['ldap-outpost'] },
      ],
    },
  );
  assert.deepEqual((await cliJson('parse', 'label=a=1,b', '--syntax', 'docker')).json, {
    canonical: 'a=1,b',
    requirements: [
      { key: 'a', operator: 'In', values: ['1'] },
      { key: 'b', operator: 'Exists', values: [] },
    ],
  });
  const match = await cliJson(
    'parse',
    'labels: {role: web}\noneOf: {site: [london, frankfurt]}\nmissing: [decommissioned]\n',
    '--syntax',
    'match',
  );
  assert.equal(match.code, 0);
  assert.equal(
    (match.json as { canonical: string }).canonical,
    '!decommissioned,role=web,site in (frankfurt,london)',
  );
  const matchJson = await cliJson('parse', '{"labels": {"port": 8080}}', '--syntax', 'match');
  assert.equal((matchJson.json as { canonical: string }).canonical, 'port=8080');
});

test('parse text output: canonical line and a table', async () => {
  const { code, stdout, stderr } = await cli('parse', 'b!=1,a');
  assert.equal(code, 0);
  assert.equal(stderr, '');
  assert.equal(stdout, 'a,b!=1\nKEY  OPERATOR  VALUES\na    Exists\nb    NotIn     "1"\n');
  assert.equal((await cli('parse', '')).stdout, '(everything: no requirements)\n');
});

test('parse error under --json: exit 1, the error with its offset and the shared diagnostics shape', async () => {
  const { code, json, stderr } = await cliJson('parse', 'x in (a b)');
  assert.equal(code, 1);
  assert.equal(stderr, '');
  assert.deepEqual(json, {
    error: {
      code: 'SELECTOR_EXPECTED_COMMA_OR_CLOSE',
      message: "found 'b', expected: ',' or ')'",
      offset: 8,
    },
    diagnostics: [
      {
        severity: 'error',
        code: 'SELECTOR_EXPECTED_COMMA_OR_CLOSE',
        module: 'selector',
        column: 9,
        message: "found 'b', expected: ',' or ')'",
      },
    ],
    errors: 1,
    warnings: 0,
  });
});

test('parse error in text: one line with the code, then the input and a caret', async () => {
  const { code, stdout, stderr } = await cli('parse', 'app=web,!tier=x');
  assert.equal(code, 1);
  assert.equal(stdout, '');
  const lines = stderr.split('\n');
  assert.equal(
    lines[0],
    "labelwise selector: error SELECTOR_EXPECTED_COMMA: found '=', expected: ',' or 'end of string' ('!' only prefixes a bare key)",
  );
  assert.equal(lines[1], '  app=web,!tier=x');
  assert.equal(lines[2], `  ${' '.repeat(13)}^`);
  assert.ok(!stderr.includes('    at '), 'no stack trace');
});

test('equality errors keep the exact anchord text', async () => {
  const conflict = await cliJson('parse', 'a=1,a=2', '--syntax', 'equality');
  assert.equal(conflict.code, 1);
  assert.deepEqual((conflict.json as { error: unknown }).error, {
    code: 'SELECTOR_EQUALITY_CONFLICT',
    message: 'label selector has duplicate key "a" with conflicting values "1" and "2"',
    offset: 4,
  });
  const missing = await cli('parse', 'nokey', '--syntax', 'equality');
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /label selector entry "nokey" missing '='/);
});

test('match errors: unknown form is named', async () => {
  const { code, json } = await cliJson('parse', 'anyOf: {a: [x]}', '--syntax', 'match');
  assert.equal(code, 1);
  assert.deepEqual((json as { error: unknown }).error, {
    code: 'SELECTOR_INVALID_MATCH',
    message: 'match has no field "anyOf"',
    path: 'match.anyOf',
  });
});

test('--profile chooses the key rules', async () => {
  assert.equal((await cli('parse', 'Bad_=x')).code, 1);
  assert.equal((await cli('parse', 'Bad_=x', '--profile', 'docker')).code, 0);
  assert.equal((await cli('parse', 'datum/site=x', '--profile', 'datum')).code, 1);
  assert.equal((await cli('parse', 'x', '--profile', 'bogus')).code, 1);
});

test('match --json: matched and every term with ok and actual', async () => {
  const { code, json } = await cliJson(
    'match',
    'tier in (api,web),!canary,region',
    '--labels',
    'tier=web,canary=',
  );
  assert.equal(code, 0);
  assert.deepEqual(json, {
    matched: false,
    terms: [
      { requirement: '!canary', ok: false, actual: '' },
      { requirement: 'region', ok: false, actual: null },
      { requirement: 'tier in (api,web)', ok: true, actual: 'web' },
    ],
  });
});

test('match --labels splits items at commas and each at its first =', async () => {
  const { json } = await cliJson('match', 'a=b=c', '--labels', 'a=b=c', '--syntax', 'equality');
  assert.deepEqual(json, {
    matched: true,
    terms: [{ requirement: 'a=b=c', ok: true, actual: 'b=c' }],
  });
});

test("match --labels '' is the empty label set", async () => {
  const { code, json } = await cliJson('match', 'tier!=frontend,!canary', '--labels', '');
  assert.equal(code, 0);
  assert.deepEqual(json, {
    matched: true,
    terms: [
      { requirement: '!canary', ok: true, actual: null },
      { requirement: 'tier!=frontend', ok: true, actual: null },
    ],
  });
});

test('match --labels-json takes any label set, __proto__ included', async () => {
  const { json } = await cliJson(
    'match',
    '__proto__=x,constructor=y',
    '--syntax',
    'equality',
    '--labels-json',
    '{"__proto__":"x"}',
  );
  assert.equal((json as { matched: boolean }).matched, false);
  const ok = await cliJson(
    'match',
    '__proto__=x',
    '--syntax',
    'equality',
    '--labels-json',
    '{"__proto__":"x","a,b":"c"}',
  );
  assert.equal((ok.json as { matched: boolean }).matched, true);
});

test('match text: verdict, and with --explain a table', async () => {
  const plain = await cli('match', 'app=web', '--labels', 'app=web');
  assert.equal(plain.code, 0);
  assert.equal(plain.stdout, 'matched\n');
  const explained = await cli('match', 'app=web,env!=dev', '--labels', 'env=dev', '--explain');
  assert.equal(explained.code, 0);
  assert.equal(
    explained.stdout,
    'not matched\nRESULT  REQUIREMENT  ACTUAL\nFAIL    app=web      (absent)\nFAIL    env!=dev     "dev"\n',
  );
});

test('match of the Nothing selector explains itself', async () => {
  const { stdout } = await cli(
    'match',
    '{"oneOf": {"a": []}}',
    '--syntax',
    'match',
    '--labels',
    'a=1',
  );
  assert.match(stdout, /^not matched\n.*Nothing/);
});

test('match needs exactly one of --labels and --labels-json', async () => {
  const none = await cliJson('match', 'a');
  assert.equal(none.code, 1);
  assert.equal((none.json as { error: { code: string } }).error.code, 'CLI_USAGE');
  const both = await cli('match', 'a', '--labels', 'a=1', '--labels-json', '{}');
  assert.equal(both.code, 1);
  assert.match(
    both.stderr,
    /exactly one of --labels, --labels-json, --labels-file or --labels-json-file/,
  );
});

test('match: a bad --labels item is an error with a caret', async () => {
  const text = await cli('match', 'a', '--labels', 'a=1,x');
  assert.equal(text.code, 1);
  assert.deepEqual(text.stderr.split('\n').slice(0, 3), [
    `labelwise selector: error SELECTOR_INVALID_LABELS: label "x" missing '='`,
    '  a=1,x',
    '      ^',
  ]);
  const json = await cliJson('match', 'a', '--labels-json', '[1]');
  assert.equal(json.code, 1);
  assert.equal((json.json as { error: { code: string } }).error.code, 'SELECTOR_INVALID_LABELS');
});

test('overlap --json: witness, or the reason for disjointness', async () => {
  assert.deepEqual((await cliJson('overlap', 'tier!=frontend', '!tier')).json, {
    overlap: true,
    witness: {},
    reason: null,
  });
  assert.deepEqual(
    (await cliJson('overlap', 'app=web,env', 'app in (web,api),env notin (v)')).json,
    {
      overlap: true,
      witness: { app: 'web', env: 'v1' },
      reason: null,
    },
  );
  const disjoint = await cliJson(
    'overlap',
    'anchord.role=ldap',
    'anchord.role=proxy',
    '--syntax',
    'equality',
  );
  assert.equal(disjoint.code, 0);
  assert.deepEqual(disjoint.json, {
    overlap: false,
    witness: null,
    reason: 'key "anchord.role": anchord.role=ldap and anchord.role=proxy cannot both hold',
  });
});

test('overlap text output', async () => {
  assert.equal(
    (await cli('overlap', 'a=1', 'b=2')).stdout,
    'overlap: a label set matched by both is a=1,b=2\n',
  );
  assert.equal(
    (await cli('overlap', 'x', '!x')).stdout,
    'disjoint: key "x": x and !x cannot both hold\n',
  );
  assert.equal(
    (await cli('overlap', '', '')).stdout,
    'overlap: a label set matched by both is {} (no labels)\n',
  );
});

test('subsumes --json: true, or a counterexample', async () => {
  assert.deepEqual((await cliJson('subsumes', 'env', 'env,env notin (x)')).json, {
    subsumes: true,
    counterexample: null,
  });
  assert.deepEqual((await cliJson('subsumes', 'env notin (x)', 'env')).json, {
    subsumes: false,
    counterexample: { env: 'x' },
  });
  assert.deepEqual((await cliJson('subsumes', 'env', 'env notin (x)')).json, {
    subsumes: false,
    counterexample: {},
  });
});

test('subsumes text output', async () => {
  assert.equal(
    (await cli('subsumes', 'a in (1,2)', 'a=1')).stdout,
    'subsumes: every label set B matches, A matches too\n',
  );
  assert.equal(
    (await cli('subsumes', 'a=1', 'a in (1,2)')).stdout,
    'does not subsume: B matches a=2 but A does not\n',
  );
});

test('an error in the second selector of overlap points at that selector', async () => {
  const { code, stderr } = await cli('overlap', 'a=1', 'b in (x');
  assert.equal(code, 1);
  assert.deepEqual(stderr.split('\n').slice(1, 3), ['  b in (x', '         ^']);
});

test('--help everywhere exits 0 and shows a real example', async () => {
  for (const argv of [
    ['--help'],
    ['parse', '--help'],
    ['match', '--help'],
    ['overlap', '--help'],
    ['subsumes', '--help'],
  ]) {
    const { code, stdout } = await cli(...argv);
    assert.equal(code, 0, argv.join(' '));
    assert.match(stdout, /labelwise selector (parse|match|overlap|subsumes) '/, argv.join(' '));
  }
});

test('usage errors exit 1: no subcommand, unknown subcommand, option, syntax, missing argument', async () => {
  const none = await cli();
  assert.equal(none.code, 1);
  assert.match(none.stderr, /Usage: labelwise selector/);
  for (const argv of [
    ['bogus'],
    ['parse', 'a', '--bogus'],
    ['parse', 'a', '--syntax', 'regex'],
    ['overlap', 'a'],
    ['parse', 'a', 'b'],
  ]) {
    const { code, stderr } = await cli(...argv);
    assert.equal(code, 1, argv.join(' '));
    assert.ok(stderr.length > 0);
  }
});

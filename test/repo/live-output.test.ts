/**
 * Nothing a hostile repository writes may come alive in what labelwise prints: no link, autolink,
 * mention, image or HTML in the pull-request comment, no embedded link in SARIF text, no
 * reordered or hidden text (bidi controls, zero-width characters) anywhere, and JUnit XML that
 * stays well-formed whatever the file names. Failures under --format still print a document.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RepoReader, escapeBytes, escapeControl, toJunit, toSarif } from '../../src/base/index.js';
import type { Diagnostic } from '../../src/base/index.js';
import { memoryIO } from '../../src/cli/io.js';
import { reportFailure } from '../../src/cli/main.js';
import { renderDiffMarkdown, renderDiffText } from '../../src/repo/index.js';
import type { RepoDiff } from '../../src/repo/index.js';
import { skipWithout } from '../support/capabilities.js';
import { cliIn as cli, git } from '../support/git.js';
import { sarifValidator } from '../support/sarif.js';
import { withTempDir } from '../support/temp.js';
import { xmlProblem } from '../support/xml.js';

const HOSTILE = [
  '@octocat',
  'hi @org/team',
  'https://1347440052',
  'mail user@host now',
  'www.example.com',
  '![x](https://e.example/i.png)',
  '[click](https://e.example)',
  '<img src=x onerror=alert(1)>',
  '<!-- hidden -->',
  'tick`s ``and`` ```runs```',
  '`@edge`',
  'ok\u202egpj.yaml',
  'zero\u200bwidth\ufeff\u2066',
];

const BIDI = /[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\u2028\u2029]/;

function diagnostic(text: string, i: number): Diagnostic {
  return {
    severity: i % 2 === 0 ? 'error' : 'warning',
    code: 'YAML_SYNTAX',
    file: text,
    line: 1,
    message: text,
  };
}

function hostileDiff(): RepoDiff {
  const diags = HOSTILE.map(diagnostic);
  return {
    from: { revision: HOSTILE[0] as string },
    to: { revision: HOSTILE[1] as string },
    fleet: {
      changes: HOSTILE.map((h) => ({
        host: h,
        change: 'changed' as const,
        layersAdded: [h],
        layersRemoved: [h],
        fields: [{ resource: h, field: h, before: h, after: h, layers: [h] }],
      })),
    },
    catalog: {
      changes: HOSTILE.map((h) => ({
        file: h,
        change: 'changed' as const,
        patch: `+ ${h}\n- ${h}`,
      })),
      flows: HOSTILE.map((h) => ({ flow: h, change: 'allowed' as const })),
      hazards: diags,
    },
    policy: {
      changes: HOSTILE.map((h) => ({
        target: h,
        client: h,
        before: h,
        after: h,
        cause: h,
        causeKind: 'authorization' as const,
      })),
      compiledChanged: true,
      causes: HOSTILE.map((h) => ({
        cause: h,
        kind: 'authorization' as const,
        cells: 1,
        targets: [h],
        clients: [h],
        transitions: [`${h} → ${h}`],
      })),
    },
    anchor: {
      changes: HOSTILE.map((h) => ({
        project: h,
        backend: h,
        change: 'moved' as const,
        before: h,
        after: h,
      })),
      overlapsIntroduced: diags,
    },
    introduced: diags,
    resolved: diags,
    errors: 1,
    changed: true,
    checked: {
      modules: [{ module: 'policy', counts: { servers: 1 } }],
      composeNotRead: HOSTILE.map((h) => ({ file: h, project: [h] })),
    },
  };
}

/**
 * `line` with its CommonMark code spans taken out: a run of N backticks opens a span that the
 * next run of exactly N closes; an unmatched run is literal text.
 */
function outsideCode(line: string): string {
  let out = '';
  let at = 0;
  while (at < line.length) {
    const open = /`+/g;
    open.lastIndex = at;
    const m = open.exec(line);
    if (m === null) return out + line.slice(at);
    out += line.slice(at, m.index);
    const close = new RegExp(`(?<!\`)${'`'.repeat(m[0].length)}(?!\`)`, 'g');
    close.lastIndex = m.index + m[0].length;
    const end = close.exec(line);
    if (end === null) {
      out += m[0];
      at = m.index + m[0].length;
    } else at = end.index + m[0].length;
  }
  return out;
}

/** The Markdown text GitHub would render as Markdown (fenced blocks and code spans removed). */
function liveText(markdown: string): string[] {
  const live: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const bar = /^(`{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (bar !== undefined && bar.length >= fence.length && line.trim() === bar) fence = undefined;
      continue;
    }
    if (bar !== undefined) {
      fence = bar;
      continue;
    }
    live.push(outsideCode(line));
  }
  assert.equal(fence, undefined, 'every fenced block is closed');
  return live;
}

test('Markdown: every input-derived string is inside code; nothing links, mentions or renders HTML', () => {
  const markdown = renderDiffMarkdown(hostileDiff(), HOSTILE[2] as string, 1_000_000);
  assert.doesNotMatch(markdown, BIDI);
  for (const line of liveText(markdown)) {
    const tags = line.replace(/<\/?(details|summary)>/g, '');
    assert.doesNotMatch(tags, /[@<]|https?:|www\.|\]\(|!\[/, `live text: ${line}`);
  }
  // Each hostile string is still there for the reader, in code.
  assert.match(markdown, /`` tick`s ``and`` ```runs``` ``/);
});

test('Markdown cut to fit a comment leaves no code span open', () => {
  for (const limit of [2_000, 3_333, 5_000]) {
    const markdown = renderDiffMarkdown(hostileDiff(), 'repo', limit);
    assert.ok(markdown.length <= limit, `${markdown.length} <= ${limit}`);
    for (const line of liveText(markdown))
      assert.doesNotMatch(line.replace(/<\/?(details|summary)>/g, ''), /[@<]|https?:/, line);
  }
});

test('text output escapes bidi and zero-width characters like C0 controls', () => {
  const text = renderDiffText(hostileDiff(), 'repo');
  assert.doesNotMatch(text, BIDI);
  assert.match(text, /ok\\u202egpj\.yaml/);
  assert.equal(
    escapeControl('a\u202eb\u200bc\ufeffd\u2066e\u2028f', true),
    'a\\u202eb\\u200bc\\ufeffd\\u2066e\\u2028f',
  );
  assert.equal(escapeBytes(Buffer.from([0x61, 0xff, 0xfe, 0xc3, 0xa9, 0x1b])), 'a\\xff\\xfeé\\x1b');
});

test('SARIF message text escapes [ and ] (no embedded links) and stays valid', () => {
  const log = toSarif(
    [{ ...diagnostic('[click](https://e.example) \u202e', 0), object: 'Server [x]' }],
    { version: '0.0.0' },
  );
  assert.equal(sarifValidator()(log), true);
  const text = log.runs[0]?.results?.[0]?.message.text ?? '';
  assert.equal(text, '\\[Server \\[x\\]\\] \\[click\\](https://e.example) \\u202e');
  assert.doesNotMatch(text, /(?<!\\)[[\]]/);
});

test('JUnit stays well-formed XML whatever the names (U+FFFF, lone surrogates, controls)', () => {
  const names = [
    'a\uffffb',
    'lone \ud800 high',
    'lone \udc00 low',
    'nul\u0000',
    ']]><x>&amp;"\'',
    ...HOSTILE,
  ];
  const xml = toJunit(names.map(diagnostic), {
    name: 'labelwise \ufffe build',
    warningsFail: true,
  });
  assert.equal(xmlProblem(xml), undefined, xml);
  assert.equal(xmlProblem('<a>\uffff</a>') !== undefined, true, 'the checker rejects U+FFFF');
  assert.match(xml, /a\\uffffb/);
});

test('a file whose name is not UTF-8 is reported by the reader, named with its bytes escaped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-bytes-'));
  try {
    writeFileSync(Buffer.from(`${dir}/ok.yaml`), 'a: 1\n');
    writeFileSync(
      Buffer.concat([Buffer.from(`${dir}/`), Buffer.from([0xff, 0xfe]), Buffer.from('.yaml')]),
      'a: 1\n',
    );
    const reader = RepoReader.open(dir);
    assert.deepEqual(
      reader.list('').map((e) => e.path),
      ['ok.yaml'],
    );
    assert.deepEqual(
      reader.diagnostics.map((d) => [d.severity, d.code, d.file]),
      [['error', 'READ_NAME_NOT_UTF8', '\\xff\\xfe.yaml']],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with --format sarif|junit|json an error is still a valid document of that format', async (t) => {
  if (skipWithout(t, 'git')) return;
  const validate = sarifValidator();
  await withTempDir('formats', async (dir) => {
    const cases: [string[], number][] = [
      [['diff', 'missing', '--from', 'HEAD'], 3],
      [['diff', '.', '--from', 'HEAD'], 1],
      [['build', 'missing'], 3],
      [['diff', '.'], 1],
    ];
    for (const [argv, exit] of cases) {
      const sarif = await cli(dir, ...argv, '--format', 'sarif');
      assert.equal(sarif.code, exit, `${argv.join(' ')}: ${sarif.out}${sarif.err}`);
      assert.equal(validate(JSON.parse(sarif.out)), true, sarif.out);
      assert.equal(JSON.parse(sarif.out).runs[0].results.length, 1);
      const junit = await cli(dir, ...argv, '--format', 'junit');
      assert.equal(junit.code, exit);
      assert.equal(xmlProblem(junit.out), undefined, junit.out);
      assert.match(junit.out, /<failure /);
      const json = await cli(dir, ...argv, '--format', 'json');
      assert.equal(json.code, exit);
      assert.equal(JSON.parse(json.out).diagnostics.length, 1);
    }
  });
});

test('a bad revision under --format sarif is a SARIF log naming DIFF_BAD_REVISION', async (t) => {
  if (skipWithout(t, 'git')) return;
  await withTempDir('badrev', async (dir) => {
    git(dir, 'init', '-q', '-b', 'main');
    const r = await cli(dir, 'diff', '.', '--from', 'no-such-branch', '--format', 'sarif');
    assert.equal(r.code, 1);
    const log = JSON.parse(r.out);
    assert.equal(sarifValidator()(log), true);
    assert.equal(log.runs[0].results[0].ruleId, 'DIFF_BAD_REVISION');
  });
});

test('an internal error under --format is still a document, CLI_INTERNAL_ERROR, exit 70', async () => {
  for (const format of ['sarif', 'junit', 'json'] as const) {
    const io = memoryIO();
    const code = await reportFailure(new TypeError('boom'), 'diff', format, io);
    assert.equal(code, 70);
    assert.match(io.err, /internal error, please report it[\s\S]*TypeError: boom/);
    if (format === 'sarif') {
      const log = JSON.parse(io.out);
      assert.equal(sarifValidator()(log), true);
      assert.equal(log.runs[0].results[0].ruleId, 'CLI_INTERNAL_ERROR');
    } else if (format === 'junit') assert.equal(xmlProblem(io.out), undefined);
    else assert.equal(JSON.parse(io.out).diagnostics[0].code, 'CLI_INTERNAL_ERROR');
  }
});

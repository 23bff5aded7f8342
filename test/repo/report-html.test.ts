import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { buildReport, renderReportHtml } from '../../src/repo/index.js';
import type { StageRun } from '../../src/repo/index.js';
import type { AnchorClaims } from '../../src/anchor/index.js';
import type { FleetMatrix } from '../../src/fleet/index.js';
import { CHROMIUM, skipWithout } from '../support/capabilities.js';

const fleetData: FleetMatrix = {
  hosts: ['web-001', 'db-001'],
  layers: ['base', 'role-web'],
  applies: [
    [true, true],
    [true, false],
  ],
};

const anchorData: AnchorClaims = {
  projects: [
    {
      project: 'ix-authentik',
      files: ['compose/compose.yaml'],
      anchors: [
        {
          anchor: 'anchord-ldap',
          scope: 'anchord.role=ldap',
          backends: [
            {
              backend: 'ldap-outpost',
              entries: [
                {
                  family: 'ipv4',
                  proto: 'tcp',
                  port: 389,
                  backend: 'ldap-outpost',
                  backendPort: 3389,
                },
              ],
            },
          ],
        },
        { anchor: 'anchord-proxy', scope: 'anchord.role=proxy', backends: [] },
      ],
    },
  ],
};

const runs: StageRun[] = [
  {
    module: 'fleet',
    input: 'fleet',
    ms: 1,
    result: {
      diagnostics: [
        {
          module: 'fleet',
          severity: 'error',
          code: 'FLEET_TEST',
          object: 'File[<script>alert(1)</script>]',
          file: 'fleet/hosts/web.yaml',
          line: 7,
          message: 'mode "<b>0777</b>" & more',
        },
      ],
      outputs: {},
      counts: { hosts: 2, layers: 2 },
      data: fleetData,
    },
  },
  {
    module: 'anchor',
    input: 'compose',
    ms: 1,
    result: {
      diagnostics: [
        {
          module: 'anchor',
          severity: 'warning',
          code: 'ANCHOR_UNCLAIMED',
          message: 'backend c is not claimed',
        },
      ],
      outputs: {},
      counts: { anchors: 1 },
      data: anchorData,
    },
  },
];

test('report.html escapes hostile text and lists every section', () => {
  const html = renderReportHtml(buildReport('repo', runs, []), {
    fleet: fleetData,
    anchor: anchorData,
  });
  assert.ok(!html.includes('<script>'), 'no markup from findings reaches the page');
  assert.ok(html.includes('&#60;script&#62;'));
  assert.ok(!/(src|href)=["']?https?:/.test(html), 'no external assets');
  for (const id of ['summary', 'findings', 'fleet-matrix', 'anchor-claims', 'verdict'])
    assert.ok(html.includes(`id="${id}"`), id);
});

test('report.html renders in headless Chromium with the expected elements', async (t) => {
  if (skipWithout(t, 'chromium')) return;
  const dir = await mkdtemp(join(tmpdir(), 'labelwise-report-'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
  try {
    const file = join(dir, 'report.html');
    await writeFile(
      file,
      renderReportHtml(buildReport('repo', runs, []), { fleet: fleetData, anchor: anchorData }),
    );
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(file).href);
    assert.deepEqual(requests, [pathToFileURL(file).href], 'the page loads nothing but itself');
    assert.equal(await page.title(), 'labelwise build report: repo');
    assert.match(
      (await page.textContent('#verdict')) ?? '',
      /Build failed: 1 error\(s\), 1 warning\(s\)/,
    );
    assert.equal(await page.locator('#summary tbody tr').count(), 2);
    assert.equal(await page.locator('#findings tbody tr').count(), 2);
    assert.match(
      (await page.textContent('#findings')) ?? '',
      /File\[<script>alert\(1\)<\/script>\]/,
    );
    assert.equal(await page.locator('#fleet-matrix tbody tr').count(), 2);
    assert.equal(await page.locator('#fleet-matrix td.yes').count(), 3);
    assert.equal(await page.locator('#anchor-claims tbody tr').count(), 2);
    assert.match(
      (await page.textContent('#anchor-claims')) ?? '',
      /anchord-ldap.*anchord\.role=ldap.*ldap-outpost.*tcp\/389.*3389/s,
    );
    assert.match((await page.textContent('#anchor-claims')) ?? '', /anchord-proxy.*\(none yet\)/s);
    const dialogs: string[] = [];
    page.on('dialog', (d) => void dialogs.push(d.message()));
    assert.deepEqual(dialogs, [], 'no script ran');
  } finally {
    await browser.close();
    await rm(dir, { recursive: true, force: true });
  }
});

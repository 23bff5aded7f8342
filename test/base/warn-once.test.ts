/** A link out of the repository is warned about once, not once per reader of the file. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';
import { withTempDir } from '../support/temp.js';

test('labelwise build warns once about a policy file that links to /etc/passwd', () =>
  withTempDir('warn-once', async (dir) => {
    const repo = join(dir, 'repo');
    await mkdir(join(repo, 'policy'), { recursive: true });
    await symlink('/etc/passwd', join(repo, 'policy', 'passwd.yaml'));
    for (const json of [true, false]) {
      const io = memoryIO({ cwd: dir });
      await run(['build', repo, ...(json ? ['--json'] : [])], io);
      const text = json
        ? (JSON.parse(io.out) as { diagnostics: { file?: string }[] }).diagnostics
            .filter((d) => d.file === 'policy/passwd.yaml')
            .map((d) => JSON.stringify(d))
        : (io.out + io.err).split('\n').filter((l) => l.includes('policy/passwd.yaml'));
      assert.equal(text.length, 1, text.join('\n'));
      assert.match(text[0] ?? '', /READ_SYMLINK_OUTSIDE/);
    }
  }));

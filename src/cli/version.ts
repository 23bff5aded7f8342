import { readFileSync } from 'node:fs';

// The version is the package's own: read from package.json (two levels up from src/cli or
// dist/cli), so a release needs one edit, not two. Read as a file, not through require(): the
// CommonJS resolver (realpath, stat, module cache) costs start-up time that `--version` and
// `selector match` are measured on.
const manifest = new URL('../../package.json', import.meta.url);
export const VERSION: string = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string })
  .version;

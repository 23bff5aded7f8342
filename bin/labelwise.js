#!/usr/bin/env node
// The entry point. In a source checkout (src/ present) it runs the TypeScript sources through
// tsx, so it can never run a stale build; an installed package has only dist/ and runs that.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'cli', 'main.ts');
let entry = join(root, 'dist', 'cli', 'main.js');
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = source;
}
const { main } = await import(pathToFileURL(entry).href);
await main(process.argv.slice(2));

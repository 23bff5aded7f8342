#!/usr/bin/env node
// The installed entry point: runs the compiled CLI, or the TypeScript sources through tsx
// when the package has not been built (a fresh clone running `npm start`).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'cli', 'main.js');
if (existsSync(built)) {
  const { main } = await import(pathToFileURL(built).href);
  await main(process.argv.slice(2));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import(pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href);
  await main(process.argv.slice(2));
}

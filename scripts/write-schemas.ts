/**
 * Writes the generated JSON Schemas the package ships in `schemas/` from `labelwise schema KIND`,
 * so the files editors read are the command's output byte for byte. `npm run schemas` rewrites
 * them; `test/install/schemas.test.ts` fails when one is stale. The catalog's two schemas are
 * not copied: the package ships them where the catalog loader reads them, in `catalog/`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { memoryIO } from '../src/cli/io.js';
import { SCHEMA_KINDS } from '../src/cli/schema.js';
import { run } from '../src/cli/main.js';

/** The generated kinds and the text each file holds. */
export async function generatedSchemas(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, kind] of Object.entries(SCHEMA_KINDS)) {
    if (!kind.file.startsWith('schemas/')) continue;
    const io = memoryIO();
    const code = await run(['schema', name], io);
    if (code !== 0) throw new Error(`labelwise schema ${name} exited ${code}: ${io.err}`);
    out[kind.file] = io.out;
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  mkdirSync(new URL('../schemas/', import.meta.url), { recursive: true });
  for (const [file, text] of Object.entries(await generatedSchemas()))
    writeFileSync(new URL(`../${file}`, import.meta.url), text);
}

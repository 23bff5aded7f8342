/**
 * The yaml library, loaded on first use. It takes longer to load than the whole selector core,
 * and `labelwise selector match` (whose start-up is measured against `node -e 0`) parses no
 * YAML unless given a match block. Its node checks compare a global symbol, so nodes it makes
 * and nodes of the ES module build that other files import are told apart the same way.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

const requireModule = createRequire(import.meta.url);
let loaded: typeof Yaml | undefined;

export function yamlLibrary(): typeof Yaml {
  loaded ??= requireModule('yaml') as typeof Yaml;
  return loaded;
}

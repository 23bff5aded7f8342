/**
 * The checked-in apps directory's files, parsed once. The golden gate, the storage-migration
 * check and the immutable-field check all read the same files; the parse is remembered per
 * contents object, so one run (and the CLI's diagnostics after it) parses each file once.
 * A file that does not parse has no entry: the golden diff is what reports it.
 */
import { parseYamlDocument } from '../../base/index.js';

const parsed = new WeakMap<object, ReadonlyMap<string, unknown>>();

/** `<service>/<file>` → the file's single document, for every file that parses. */
export function parsedApps(apps: Readonly<Record<string, string>>): ReadonlyMap<string, unknown> {
  const known = parsed.get(apps);
  if (known !== undefined) return known;
  const out = new Map<string, unknown>();
  for (const [file, text] of Object.entries(apps)) {
    const { document } = parseYamlDocument(text, { file, code: 'CATALOG_YAML_SYNTAX' });
    if (document !== undefined) out.set(file, document.value);
  }
  parsed.set(apps, out);
  return out;
}

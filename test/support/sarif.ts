import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';

/**
 * A validator for SARIF 2.1.0 logs, from the OASIS schema that @microsoft/jest-sarif ships. The
 * schema is draft-04; its keywords mean the same under ajv's draft-07 but for the `$schema` and
 * `id` markers, which are dropped, and one pattern (language tags) is not valid with the u flag.
 */
export function sarifValidator(): ValidateFunction {
  const require = createRequire(import.meta.url);
  const path = join(
    require.resolve('@microsoft/jest-sarif/package.json'),
    '..',
    'lib',
    'schemas',
    'sarif-2.1.0-rtm.5.json',
  );
  const schema = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  delete schema.$schema;
  delete schema.id;
  return new Ajv({
    strict: false,
    allErrors: true,
    validateFormats: false,
    unicodeRegExp: false,
  }).compile(schema);
}

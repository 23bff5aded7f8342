import { createRequire } from 'node:module';

// The version is the package's own: read from package.json (two levels up from src/cli or dist/cli),
// so a release needs one edit, not two.
const require = createRequire(import.meta.url);
export const VERSION: string = (require('../../package.json') as { version: string }).version;

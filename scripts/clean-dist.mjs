// Empties dist/ before a build: tsc never deletes the output of a source file that was removed
// or renamed, and a stale module in a packed tarball would be importable by users.
import { rmSync } from 'node:fs';

rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });

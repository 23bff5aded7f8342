// The parallel scenario of bench/fleet.bench.ts, run by plain `node` against a compiled build of
// src/ (not through tsx), so that the main thread and every worker run the JavaScript that ships:
// a worker started from sources would register tsx and compile TypeScript in its own thread,
// which costs time and memory the installed tool never spends.
//
//   node bench/fleet-parallel-child.mjs BUILD_DIR FILES_JSON THREADS
//
// THREADS 0 validates in this thread (what `--threads 1` runs); N resolves on N worker threads.
// Prints one JSON line: hosts, threads, resolve_s, cpu_s (user + system of every thread over the
// same span, which other load on the machine does not inflate), peak_rss_mb, and core_copies
// (the layers all workers deserialized, in copies of the shared core; 0 in this thread).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [buildDir, filesJson, threadsArg] = process.argv.slice(2);
const threads = Number(threadsArg);
const { loadFleet, validateFleet, resolveInParallel } = await import(
  pathToFileURL(join(buildDir, 'fleet', 'index.js')).href
);
const fleet = loadFleet(JSON.parse(readFileSync(filesJson, 'utf8')));
const hosts = fleet.hosts.length;
const peakMb = () => process.resourceUsage().maxRSS / 1024;

const cpuNow = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};
let start;
let cpuStart;
let count;
let copies = 0;
if (threads === 0) {
  start = process.hrtime.bigint();
  cpuStart = cpuNow();
  count = validateFleet(fleet).errors;
} else {
  // The clock starts once every worker has read the core, as in the sources scenario before.
  const results = await resolveInParallel(
    fleet,
    fleet.hosts.map((h) => h.name),
    {
      threads,
      onReady: () => {
        start = process.hrtime.bigint();
        cpuStart = cpuNow();
      },
      onDone: ({ coreBytes, heldBytes }) => {
        copies = heldBytes.reduce((sum, bytes) => sum + bytes, 0) / coreBytes;
      },
    },
  );
  count = results.length;
}
const end = process.hrtime.bigint();
const cpuEnd = cpuNow();
console.log(
  JSON.stringify({
    hosts,
    threads,
    resolve_s: Number(end - start) / 1e9,
    cpu_s: cpuEnd - cpuStart,
    peak_rss_mb: peakMb(),
    core_copies: copies,
    consumed: count,
  }),
);

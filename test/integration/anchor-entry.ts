// Runs `labelwise anchor run` from the TypeScript sources, as the integration tests and the
// benchmark start it. With LABELWISE_TEST_LOG set, log lines are also appended to that file, so
// a test can read them even while dockerd (and so `docker logs`) is down.
import { appendFileSync } from 'node:fs';
import { run } from '../../src/cli/main.js';

const logFile = process.env.LABELWISE_TEST_LOG;
const tee = (write: (text: string) => void) => (text: string) => {
  write(text);
  if (logFile !== undefined && logFile !== '') appendFileSync(logFile, text);
};
process.exitCode = await run(['anchor', 'run'], {
  stdout: tee((text) => void process.stdout.write(text)),
  stderr: tee((text) => void process.stderr.write(text)),
  cwd: process.cwd(),
  env: process.env,
  isTTY: false,
});

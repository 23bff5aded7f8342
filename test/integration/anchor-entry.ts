// Runs `labelwise anchor run` from the TypeScript sources (integration tests start it inside a
// container's network namespace with nsenter).
import { main } from '../../src/cli/main.js';

await main(['anchor', 'run']);

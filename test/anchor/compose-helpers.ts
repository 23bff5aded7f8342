// Re-exports for the compose tests, plus a witness check through the selector core.
import { matches, parseEqualityList } from '../../src/selector/index.js';
import type { Labels } from '../../src/selector/index.js';
export { buildAnchorStage, checkAnchors, loadComposeProject } from '../../src/anchor/index.js';

export function matchesWitness(selector: string, witness: Labels): boolean {
  return matches(parseEqualityList(selector), witness);
}

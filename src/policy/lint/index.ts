/** All lints over a compiled model, in a stable order. */
import { compareText } from '../../base/index.js';
import type { PolicyModel } from '../compile/model.js';
import type { PolicyProblem } from '../types.js';
import {
  lintIdleRoutes,
  lintIneffectiveRoutePolicies,
  lintRewriteCollisions,
  lintRouteStatus,
} from './lint-routes.js';
import { lintShadowedRules } from './shadowed-rules.js';
import { lintOutbound } from '../outbound/lint-outbound.js';
import { lintBroadAuthorizations } from './broad-authorizations.js';
import { lintGrpcClasses } from './lint-grpc.js';
import {
  lintMissingAuthentications,
  lintMissingTargets,
  lintProbes,
  lintServerOverlaps,
} from './lint-servers.js';

/**
 * Runs every lint of spec "Commands → lint" plus the model's compile problems. Findings are
 * de-duplicated and sorted by file, line, code and message. Deterministic; never throws on input.
 */
export function lintModel(model: PolicyModel): PolicyProblem[] {
  const all = [
    ...model.problems,
    ...lintMissingAuthentications(model),
    ...lintMissingTargets(model),
    ...lintRouteStatus(model),
    ...lintIdleRoutes(model),
    ...lintGrpcClasses(model),
    ...lintServerOverlaps(model),
    ...lintProbes(model),
    ...lintShadowedRules(model),
    ...lintIneffectiveRoutePolicies(model),
    ...lintBroadAuthorizations(model),
    ...lintRewriteCollisions(model),
    ...lintOutbound(model.resources),
  ];
  return sortProblems(all);
}

/** Sorts and de-duplicates problems (same code, object, place and message). */
export function sortProblems(problems: readonly PolicyProblem[]): PolicyProblem[] {
  const seen = new Set<string>();
  const out: PolicyProblem[] = [];
  for (const p of problems) {
    const k = `${p.code}|${p.object ?? ''}|${p.file ?? ''}|${p.line ?? ''}|${p.path ?? ''}|${p.message}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(p);
  }
  return out.sort(
    (a, b) =>
      compareText(a.file ?? '', b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      compareText(a.code, b.code) ||
      compareText(a.object ?? '', b.object ?? '') ||
      compareText(a.message, b.message),
  );
}

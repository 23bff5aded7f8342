/**
 * The JSON forms of the matrix, of checked expectations and of an explained cell, as
 * `policy matrix --json` prints them and the report embeds them (docs/policy.md, "Output shapes").
 */
import type { Decision, DecisionJson } from '../decision.js';
import { decisionJson } from '../decision.js';
import type { ExpectationResult } from './expectations.js';
import type { MatrixCell, MatrixRow, PolicyMatrix } from './matrix.js';
import type { Witness } from './witness.js';

export interface ExpectationResultJson {
  readonly line: number;
  readonly expectation: string;
  readonly expect: ExpectationResult['expectation']['expect'];
  readonly ok: boolean;
  readonly found: readonly string[];
}

export interface MatrixJson {
  readonly clients: PolicyMatrix['clients'];
  readonly rows: PolicyMatrix['rows'];
  readonly clientNamespaces: PolicyMatrix['clientNamespaces'];
  readonly outbound: PolicyMatrix['outbound'];
  readonly expectations?: readonly ExpectationResultJson[];
}

/** The matrix, and the expectations checked against it when there are any. */
export function matrixJson(
  matrix: PolicyMatrix,
  results?: readonly ExpectationResult[],
): MatrixJson {
  return {
    clients: matrix.clients,
    rows: matrix.rows,
    clientNamespaces: matrix.clientNamespaces,
    outbound: matrix.outbound,
    ...(results === undefined ? {} : { expectations: results.map(expectationResultJson) }),
  };
}

export function expectationResultJson(r: ExpectationResult): ExpectationResultJson {
  return {
    line: r.expectation.line,
    expectation: r.expectation.text,
    expect: r.expectation.expect,
    ok: r.ok,
    found: r.found,
  };
}

export interface ExplainedCellJson {
  readonly row: string;
  readonly client: string;
  readonly reach: MatrixCell['reach'];
  readonly witness: Witness;
  readonly decision: DecisionJson;
}

/** One cell explained: its row and client, reach, witness request and the full decision. */
export function explainedCellJson(
  row: MatrixRow,
  client: string,
  cell: MatrixCell,
  decision: Decision,
): ExplainedCellJson {
  return {
    row: row.id,
    client,
    reach: cell.reach,
    witness: cell.witness,
    decision: decisionJson(decision),
  };
}

/** A matrix cell explained: its witness request decided by `authorize`, with the full trace. */
import { LabelwiseError } from '../../base/errors.js';
import { decide } from '../api.js';
import type { Decision } from '../authorize.js';
import type { PolicyModel } from '../compile/model.js';
import type { MatrixCell, MatrixRow, PolicyMatrix } from './matrix.js';

/** The row with this id; throws `POLICY_MATRIX_UNKNOWN` listing a few ids otherwise. */
export function matrixRow(matrix: PolicyMatrix, id: string): MatrixRow {
  const row = matrix.rows.find((r) => r.id === id);
  if (row !== undefined) return row;
  const known = matrix.rows.map((r) => r.id);
  throw new LabelwiseError('POLICY_MATRIX_UNKNOWN', `no matrix row ${JSON.stringify(id)}`, {
    source: { path: 'explain' },
    hint:
      known.length === 0
        ? 'the matrix has no rows: the input holds no pods'
        : `rows look like ${known.slice(0, 3).join(', ')}${known.length > 3 ? ', …' : ''}`,
  });
}

/** The cell of `row` for client `id`; throws `POLICY_MATRIX_UNKNOWN` listing the clients. */
export function matrixCell(matrix: PolicyMatrix, row: MatrixRow, id: string): MatrixCell {
  const cell = Object.prototype.hasOwnProperty.call(row.cells, id) ? row.cells[id] : undefined;
  if (cell !== undefined) return cell;
  throw new LabelwiseError('POLICY_MATRIX_UNKNOWN', `no matrix client ${JSON.stringify(id)}`, {
    source: { path: 'client' },
    hint: `clients: ${matrix.clients.map((c) => c.id).join(', ')}`,
  });
}

/** Decides the cell's witness request with the trace `authorize` prints. */
export function explainCell(model: PolicyModel, cell: MatrixCell): Decision {
  const w = cell.witness;
  return decide(model, {
    pod: w.pod,
    port: w.port,
    method: w.method,
    path: w.path,
    ...(w.host === undefined ? {} : { host: w.host }),
    headers: w.headers ?? [],
    ...(w.identity === undefined ? {} : { identity: w.identity }),
    clientIp: w.clientIp,
    ...(w.httpVersion === undefined ? {} : { httpVersion: w.httpVersion }),
  });
}

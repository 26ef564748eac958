/**
 * Logistic regression by full-batch Adam on standardised features, with L2 regularisation and
 * per-row weights: enough to fit the composer's sentence model (tens of features, ~10⁵ rows) in
 * seconds, deterministically (zero initialisation, fixed step count).
 */

/** Options of {@link fitLogistic}. */
export interface LogisticOptions {
  /** Adam steps over the whole batch (default 400). */
  steps?: number;
  /** Step size (default 0.05). */
  learningRate?: number;
  /** L2 penalty on the standardised weights (default 1e-4). */
  l2?: number;
}

/**
 * Fits P(y = 1 | x) = σ(w·x) on rows of named features; returns the weights by feature name on the
 * raw (unstandardised) scale, so that the model applies to raw feature values. The feature named
 * `bias` must be the constant 1 on every row and carries the intercept.
 */
export function fitLogistic(rows: ReadonlyArray<Readonly<Record<string, number>>>, labels: readonly number[], rowWeights: readonly number[], options: LogisticOptions = {}): Record<string, number> {
  if (rows.length === 0 || rows.length !== labels.length || rows.length !== rowWeights.length) throw new Error('fitLogistic: rows, labels and weights must be non-empty and of equal length');
  const names = Object.keys(rows[0]!);
  if (!names.includes('bias')) throw new Error('fitLogistic: the rows need a "bias" feature (constant 1)');
  const dimensions = names.length;
  const count = rows.length;
  const matrix = new Float64Array(count * dimensions);
  rows.forEach((row, index) => names.forEach((name, column) => (matrix[index * dimensions + column] = row[name] ?? 0)));
  const totalWeight = rowWeights.reduce((sum, weight) => sum + weight, 0);
  const mean = new Float64Array(dimensions);
  const deviation = new Float64Array(dimensions);
  for (let index = 0; index < count; index++) for (let column = 0; column < dimensions; column++) mean[column]! += (matrix[index * dimensions + column]! * rowWeights[index]!) / totalWeight;
  for (let index = 0; index < count; index++) for (let column = 0; column < dimensions; column++) deviation[column]! += ((matrix[index * dimensions + column]! - mean[column]!) ** 2 * rowWeights[index]!) / totalWeight;
  names.forEach((name, column) => {
    deviation[column] = Math.sqrt(deviation[column]!) || 1;
    if (name === 'bias') {
      mean[column] = 0;
      deviation[column] = 1;
    }
  });
  for (let index = 0; index < count; index++) for (let column = 0; column < dimensions; column++) matrix[index * dimensions + column] = (matrix[index * dimensions + column]! - mean[column]!) / deviation[column]!;

  const { steps = 400, learningRate = 0.05, l2 = 1e-4 } = options;
  const weights = new Float64Array(dimensions);
  const first = new Float64Array(dimensions);
  const second = new Float64Array(dimensions);
  const gradient = new Float64Array(dimensions);
  for (let step = 1; step <= steps; step++) {
    gradient.fill(0);
    for (let index = 0; index < count; index++) {
      let sum = 0;
      const offset = index * dimensions;
      for (let column = 0; column < dimensions; column++) sum += weights[column]! * matrix[offset + column]!;
      const error = (1 / (1 + Math.exp(-sum)) - labels[index]!) * (rowWeights[index]! / totalWeight);
      for (let column = 0; column < dimensions; column++) gradient[column]! += error * matrix[offset + column]!;
    }
    for (let column = 0; column < dimensions; column++) {
      const g = gradient[column]! + l2 * weights[column]!;
      first[column] = 0.9 * first[column]! + 0.1 * g;
      second[column] = 0.999 * second[column]! + 0.001 * g * g;
      const corrected = first[column]! / (1 - 0.9 ** step);
      const scale = second[column]! / (1 - 0.999 ** step);
      weights[column]! -= (learningRate * corrected) / (Math.sqrt(scale) + 1e-8);
    }
  }
  const raw: Record<string, number> = {};
  let intercept = 0;
  names.forEach((name, column) => {
    raw[name] = weights[column]! / deviation[column]!;
    intercept -= (weights[column]! * mean[column]!) / deviation[column]!;
  });
  raw.bias = (raw.bias ?? 0) + intercept;
  return raw;
}

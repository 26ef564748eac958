// A small ONNX graph builder on top of onnx-proto's generated protobuf classes. The build scripts
// of this package (tiny test BERT, static GloVe model) describe their graphs with it and write
// models that onnxruntime (through transformers.js) loads.
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const DataType = onnx.TensorProto.DataType;
const AttributeType = onnx.AttributeProto.AttributeType;

/** IR version 7 / opset 13: supported by onnxruntime 1.14, which @xenova/transformers 2.17 bundles. */
export const IR_VERSION = 7;
export const OPSET = 13;

function dataTypeOf(values) {
  if (values instanceof Float32Array) return DataType.FLOAT;
  if (values instanceof Int8Array) return DataType.INT8;
  if (values instanceof BigInt64Array) return DataType.INT64;
  if (values instanceof Int32Array) return DataType.INT32;
  throw new TypeError(`unsupported tensor storage ${values?.constructor?.name}`);
}

function attribute(name, value) {
  if (Array.isArray(value)) {
    if (value.every(Number.isInteger)) return { name, type: AttributeType.INTS, ints: value };
    return { name, type: AttributeType.FLOATS, floats: value };
  }
  if (typeof value === 'number') {
    return Number.isInteger(value) && !Object.is(value, -0)
      ? { name, type: AttributeType.INT, i: value }
      : { name, type: AttributeType.FLOAT, f: value };
  }
  if (typeof value === 'object' && value !== null && 'float' in value) {
    return { name, type: AttributeType.FLOAT, f: value.float };
  }
  if (typeof value === 'string') return { name, type: AttributeType.STRING, s: new TextEncoder().encode(value) };
  throw new TypeError(`unsupported attribute ${name}=${String(value)}`);
}

/**
 * Collects initializers, nodes, inputs and outputs; `encode()` returns the serialized ModelProto.
 * Names are generated (`t0`, `t1` …) unless given, so graph code reads like straight-line math.
 */
export class GraphBuilder {
  #nodes = [];
  #initializers = [];
  #inputs = [];
  #outputs = [];
  #counter = 0;

  constructor(name) {
    this.name = name;
  }

  #fresh(prefix = 't') {
    this.#counter += 1;
    return `${prefix}${this.#counter}`;
  }

  /** A graph input of element type `int64` or `float` with symbolic or fixed dims. */
  input(name, elementType, dims) {
    this.#inputs.push(valueInfo(name, elementType, dims));
    return name;
  }

  output(name, elementType, dims) {
    this.#outputs.push(valueInfo(name, elementType, dims));
    return name;
  }

  /** A constant tensor (stored as raw little-endian bytes). */
  constant(values, dims, name = this.#fresh('c')) {
    const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    this.#initializers.push({ name, dims, dataType: dataTypeOf(values), rawData: bytes.slice() });
    return name;
  }

  float(values, dims = [values.length]) {
    return this.constant(Float32Array.from(values), dims);
  }

  int64(values, dims = [values.length]) {
    return this.constant(BigInt64Array.from(values.map((v) => BigInt(v))), dims);
  }

  /** Adds one node and returns its (first) output name. */
  op(opType, inputs, attributes = {}, output = this.#fresh()) {
    this.#nodes.push({
      opType,
      input: inputs,
      output: [output],
      name: `${opType}_${this.#nodes.length}`,
      attribute: Object.entries(attributes).map(([key, value]) => attribute(key, value)),
    });
    return output;
  }

  encode({ producer = 'zerda', docString = '' } = {}) {
    const model = onnx.ModelProto.create({
      irVersion: IR_VERSION,
      producerName: producer,
      docString,
      opsetImport: [{ domain: '', version: OPSET }],
      graph: {
        name: this.name,
        node: this.#nodes,
        initializer: this.#initializers,
        input: this.#inputs,
        output: this.#outputs,
      },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}

function valueInfo(name, elementType, dims) {
  const elemType = elementType === 'int64' ? DataType.INT64 : DataType.FLOAT;
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
      },
    },
  };
}

/** Symmetric per-tensor int8 quantization: returns the int8 values and the scale. */
export function quantizeTensor(values) {
  let max = 0;
  for (const v of values) max = Math.max(max, Math.abs(v));
  const scale = max === 0 ? 1 : max / 127;
  const quantized = new Int8Array(values.length);
  for (let i = 0; i < values.length; i++) quantized[i] = Math.max(-127, Math.min(127, Math.round(values[i] / scale)));
  return { quantized, scale };
}

/** Deterministic pseudo-random numbers (mulberry32 of @zerda/types), so generated fixtures are reproducible. */
export { seededRandom } from '@zerda/types';

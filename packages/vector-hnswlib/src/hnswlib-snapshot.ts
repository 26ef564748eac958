import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import { isVectorMetric, readSnapshotArray, readSnapshotJson, writeSnapshotArray, writeSnapshotJson, type SnapshotReader, type SnapshotWriter, type VectorMetric } from '@zerda/types';
import { MemoryVectorStore } from '@zerda/vector-memory';

type HnswIndex = InstanceType<typeof hnswlib.HierarchicalNSW>;

/**
 * The snapshot layout of an HNSW store (its own directory since format 2, or its folder inside an
 * engine snapshot):
 *   hnsw.json         settings and counters (metric, dimension, M, efConstruction, labels …)
 *   graph/index.hnsw  hnswlib's graph, written by hnswlib itself (absent before the first vector)
 *   exact/…           the chunks and exact vectors (the memory store's snapshot layout)
 *   labels.u32        the graph label of each chunk, in the exact store's storage order
 */
export const HNSW_SNAPSHOT_FORMAT = 'zerda-vector-hnswlib';
export const HNSW_SNAPSHOT_VERSION = 2;
const GRAPH_FILE = 'index.hnsw';

/** Settings and counters recorded in `hnsw.json`. */
export interface HnswSnapshotSettings {
  metric: VectorMetric;
  dimensions: number | null;
  count: number;
  M: number;
  efConstruction: number;
  efSearch: number;
  /** `efSearch: 'auto'` (then `efSearch` holds its base, 256); absent in snapshots written before it existed. */
  efSearchAuto?: boolean;
  randomSeed: number;
  maxElements: number;
  nextLabel: number;
  deletedSlots: number;
}

/** What was read back: everything checked, nothing adopted yet. */
export interface HnswSnapshotState {
  settings: HnswSnapshotSettings;
  exact: MemoryVectorStore;
  index: HnswIndex | undefined;
  labelById: Map<string, number>;
}

/** Writes a store's state (the caller holds the store's write lock). */
export async function writeHnswSnapshot(writer: SnapshotWriter, settings: HnswSnapshotSettings, index: HnswIndex | undefined, exact: MemoryVectorStore, labelById: ReadonlyMap<string, number>): Promise<void> {
  await writeSnapshotJson(writer, 'hnsw.json', { format: HNSW_SNAPSHOT_FORMAT, version: HNSW_SNAPSHOT_VERSION, ...settings });
  if (index) {
    const graph = await writer.directory('graph');
    await index.writeIndex(join(graph, GRAPH_FILE));
  }
  await exact.writeSnapshot(writer.scope('exact'));
  const ids = exact.matchingIds();
  const labels = new Uint32Array(ids.length);
  ids.forEach((id, row) => (labels[row] = labelById.get(id)!));
  await writeSnapshotArray(writer, 'labels.u32', labels);
}

function isCount(value: unknown, minimum = 0): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= minimum;
}

/** Reads and cross-checks a store's snapshot; every inconsistency is the reader's corruption error naming the file. */
export async function readHnswSnapshot(reader: SnapshotReader, expect: { metric: VectorMetric | undefined; dimensions: number | undefined }): Promise<HnswSnapshotState> {
  const json = await readSnapshotJson(reader, 'hnsw.json');
  const fail = (reason: string) => reader.corrupt('hnsw.json', 'consistency', reason);
  if (json.format !== HNSW_SNAPSHOT_FORMAT) throw reader.corrupt('hnsw.json', 'format', `expected format "${HNSW_SNAPSHOT_FORMAT}", got ${JSON.stringify(json.format)}`);
  if (json.version !== HNSW_SNAPSHOT_VERSION) throw reader.corrupt('hnsw.json', 'version', `HNSW snapshot version ${JSON.stringify(json.version)} is not supported (this version reads ${HNSW_SNAPSHOT_VERSION})`);
  if (!isVectorMetric(json.metric)) throw fail(`unknown metric ${JSON.stringify(json.metric)}`);
  if (!(json.dimensions === null || isCount(json.dimensions, 1))) throw fail(`invalid dimensions ${JSON.stringify(json.dimensions)}`);
  for (const field of ['count', 'nextLabel', 'deletedSlots', 'randomSeed'] as const) if (!isCount(json[field])) throw fail(`invalid ${field} ${JSON.stringify(json[field])}`);
  for (const field of ['M', 'efConstruction', 'efSearch', 'maxElements'] as const) if (!isCount(json[field], 1)) throw fail(`invalid ${field} ${JSON.stringify(json[field])}`);
  if (json.efSearchAuto !== undefined && typeof json.efSearchAuto !== 'boolean') throw fail(`invalid efSearchAuto ${JSON.stringify(json.efSearchAuto)}`);
  const settings = json as unknown as HnswSnapshotSettings;
  if (expect.metric !== undefined && expect.metric !== settings.metric) throw fail(`it was saved with metric "${settings.metric}", but metric "${expect.metric}" was requested`);
  if (expect.dimensions !== undefined && settings.dimensions !== null && expect.dimensions !== settings.dimensions) {
    throw fail(`it holds ${settings.dimensions}-dimensional vectors, but dimensions ${expect.dimensions} were requested`);
  }
  if ((settings.dimensions === null) !== !reader.has(`graph/${GRAPH_FILE}`)) throw fail('it lists a graph without dimensions, or dimensions without a graph');

  const exact = new MemoryVectorStore({ metric: settings.metric, ...(settings.dimensions !== null ? { dimensions: settings.dimensions } : {}) });
  await exact.readSnapshot(reader.scope('exact'));
  const count = await exact.count();
  if (count !== settings.count) throw reader.corrupt('exact/store.json', 'consistency', `it holds ${count} chunks, hnsw.json says ${settings.count}`);
  const labels = await readSnapshotArray(reader, 'labels.u32', Uint32Array, count);
  const ids = exact.matchingIds();
  const labelById = new Map<string, number>();
  const seen = new Set<number>();
  for (let row = 0; row < ids.length; row++) {
    const label = labels[row]!;
    if (label >= settings.nextLabel || seen.has(label)) throw reader.corrupt('labels.u32', 'consistency', `label ${label} of chunk ${JSON.stringify(ids[row])} is out of range or repeated`);
    seen.add(label);
    labelById.set(ids[row]!, label);
  }

  let index: HnswIndex | undefined;
  if (settings.dimensions !== null) {
    const path = join(await reader.directory('graph'), GRAPH_FILE);
    index = new hnswlib.HierarchicalNSW(settings.metric, settings.dimensions);
    try {
      await index.readIndex(path, true);
    } catch (error) {
      throw reader.corrupt(`graph/${GRAPH_FILE}`, 'consistency', `hnswlib cannot read it (${error instanceof Error ? error.message : String(error)})`, error);
    }
    if (index.getNumDimensions() !== settings.dimensions) throw reader.corrupt(`graph/${GRAPH_FILE}`, 'consistency', `the graph has ${index.getNumDimensions()} dimensions, hnsw.json says ${settings.dimensions}`);
    const graphLabels = index.getIdsList();
    if (graphLabels.length !== count + settings.deletedSlots) {
      throw reader.corrupt(`graph/${GRAPH_FILE}`, 'consistency', `the graph holds ${graphLabels.length} labels, expected ${count} live + ${settings.deletedSlots} deleted`);
    }
    const inGraph = new Set(graphLabels);
    for (const label of seen) if (!inGraph.has(label)) throw reader.corrupt(`graph/${GRAPH_FILE}`, 'consistency', `label ${label} is missing from the graph`);
  }
  return { settings, exact, index, labelById };
}

/**
 * How chunks are known to the graph: hnswlib knows nodes by integer labels, the store by chunk id.
 * Labels are our own integers, never reused for another id; a deleted chunk's node is marked
 * deleted in the graph and its slot counted as reusable by a later insert (hnswlib's
 * `replace_deleted`), so deletes do not leak capacity.
 */
export class HnswLabels {
  private readonly labelById = new Map<string, number>();
  private readonly idByLabel = new Map<number, string>();
  /** The label the next insert takes. */
  next = 0;
  /** Marked-deleted slots not yet reused by an insert. */
  deletedSlots = 0;

  /** Labels from a snapshot (id → label), with its counters. */
  static restore(entries: Iterable<[string, number]>, next: number, deletedSlots: number): HnswLabels {
    const labels = new HnswLabels();
    for (const [id, label] of entries) labels.link(id, label);
    labels.next = next;
    labels.deletedSlots = deletedSlots;
    return labels;
  }

  /** Chunks with a node. */
  get size(): number {
    return this.labelById.size;
  }

  /** Every id → label (for a snapshot). */
  get byId(): ReadonlyMap<string, number> {
    return this.labelById;
  }

  labelOf(id: string): number | undefined {
    return this.labelById.get(id);
  }

  idOf(label: number): string | undefined {
    return this.idByLabel.get(label);
  }

  /** How many of `ids` have no node yet (each becomes an insert). */
  countNew(ids: Iterable<string>): number {
    let inserts = 0;
    for (const id of ids) if (!this.labelById.has(id)) inserts++;
    return inserts;
  }

  /** Gives `id` the next label; `reuse` says whether its node takes a deleted node's slot. */
  insert(id: string): { label: number; reuse: boolean } {
    const label = this.next++;
    const reuse = this.deletedSlots > 0;
    if (reuse) this.deletedSlots--;
    this.link(id, label);
    return { label, reuse };
  }

  /** Takes over labels assigned elsewhere (a parallel build), with the counters after them; ids that had a label keep it. */
  adopt(ids: readonly string[], labels: Uint32Array, next: number, deletedSlots: number): void {
    ids.forEach((id, i) => {
      if (!this.labelById.has(id)) this.link(id, labels[i]!);
    });
    this.next = next;
    this.deletedSlots = deletedSlots;
  }

  /** Forgets `id` and returns its label (for the graph to mark deleted), counting its slot as reusable. */
  release(id: string): number | undefined {
    const label = this.labelById.get(id);
    if (label === undefined) return undefined;
    this.labelById.delete(id);
    this.idByLabel.delete(label);
    this.deletedSlots++;
    return label;
  }

  private link(id: string, label: number): void {
    this.labelById.set(id, label);
    this.idByLabel.set(label, id);
  }
}

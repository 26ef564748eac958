/**
 * Row storage for vectors: a list of `Float32Array` pages, each holding `pageRows` contiguous rows.
 * The first page grows by doubling (so a ten-chunk store does not allocate megabytes); once it is
 * full, further pages are allocated at full size. Unlike one array that doubles forever, growing a
 * million-row store never copies what is already stored and never needs twice its memory at once,
 * and no single typed array approaches V8's size limit.
 */
export class VectorPages {
  readonly pageShift: number;
  readonly pageRows: number;
  private readonly pageMask: number;
  private pages: Float32Array[] = [];
  private capacityRows = 0;

  constructor(
    readonly dimensions: number,
    /** Floats per full page; the default (4M floats = 16 MiB) keeps pages cache- and GC-friendly. */
    targetFloatsPerPage = 4 * 1024 * 1024,
  ) {
    const rows = Math.max(1024, targetFloatsPerPage / dimensions);
    this.pageShift = Math.floor(Math.log2(rows));
    this.pageRows = 1 << this.pageShift;
    this.pageMask = this.pageRows - 1;
  }

  get capacity(): number {
    return this.capacityRows;
  }

  /** Bytes allocated for vectors (including unused capacity). */
  get allocatedBytes(): number {
    let bytes = 0;
    for (const page of this.pages) bytes += page.byteLength;
    return bytes;
  }

  /** Makes room for at least `rows` rows. */
  ensureCapacity(rows: number): void {
    while (this.capacityRows < rows) {
      const first = this.pages[0];
      if (this.pages.length <= 1 && this.capacityRows < this.pageRows) {
        // Still on the first page: double it (at least 64 rows, at most one full page).
        const nextRows = Math.min(this.pageRows, Math.max(64, this.capacityRows * 2, rows));
        const grown = new Float32Array(nextRows * this.dimensions);
        if (first) grown.set(first);
        this.pages[0] = grown;
        this.capacityRows = nextRows;
      } else {
        this.pages.push(new Float32Array(this.pageRows * this.dimensions));
        this.capacityRows += this.pageRows;
      }
    }
  }

  /** The page holding `row`, and the offset of the row's first float in it. */
  page(row: number): Float32Array {
    return this.pages[row >>> this.pageShift]!;
  }

  offset(row: number): number {
    return (row & this.pageMask) * this.dimensions;
  }

  write(row: number, vector: Float32Array): void {
    this.page(row).set(vector, this.offset(row));
  }

  /** A copy of the row. */
  read(row: number): Float32Array {
    const offset = this.offset(row);
    return this.page(row).slice(offset, offset + this.dimensions);
  }

  /** Writes consecutive rows starting at `firstRow` (`data` holds whole rows; capacity must exist). */
  writeRows(firstRow: number, data: Float32Array): void {
    const rows = data.length / this.dimensions;
    for (let done = 0; done < rows; ) {
      const row = firstRow + done;
      const inPage = Math.min(rows - done, this.pageRows - (row & this.pageMask));
      this.page(row).set(data.subarray(done * this.dimensions, (done + inPage) * this.dimensions), this.offset(row));
      done += inPage;
    }
  }

  copyRow(from: number, to: number): void {
    const source = this.page(from);
    const offset = this.offset(from);
    this.page(to).set(source.subarray(offset, offset + this.dimensions), this.offset(to));
  }

  /** Contiguous views over rows `[0, count)`, one per page, for bulk scans and saving. */
  *segments(count: number): Generator<{ firstRow: number; rows: number; data: Float32Array }> {
    for (let index = 0, firstRow = 0; firstRow < count; index++, firstRow += this.pageRows) {
      const rows = Math.min(this.pageRows, count - firstRow);
      yield { firstRow, rows, data: this.pages[index]!.subarray(0, rows * this.dimensions) };
    }
  }

  /** Drops every page. */
  reset(): void {
    this.pages = [];
    this.capacityRows = 0;
  }
}

// Child of the persistence crash suite: saves forever into argv[2] (a snapshot directory, or a
// single-file snapshot with argv[3] === 'file'), alternating between two states.
import { writeSnapshotDirectory, writeSnapshotFile } from '@zerda/persistence';
import { saveForever } from '@zerda/persistence/testing';
import { FORMAT, writeState } from './crash-states.mjs';

const [target, kind] = process.argv.slice(2);
await saveForever(['b', 'c'], async (label) => {
  if (kind === 'file') await writeSnapshotFile(target, FORMAT, (writer) => writeState(writer, label));
  else await writeSnapshotDirectory(target, FORMAT, (writer) => writeState(writer, label));
});

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContextEngine, ConversationHistory, type ContextResult, type ConversationHistoryJSON } from '@zerda/context';
import { documents } from '@zerda/example-quickstart';

/** The English conversation: two turns before the restart, two after. */
export const firstSession = ['What is retrieval-augmented generation?', 'Why does it reduce hallucinations?'] as const;
export const secondSession = ['How is it kept up to date?', 'What is BM25?'] as const;
/** A second user's conversation, in Arabic, on the same engine. */
export const arabicThread = ['ما هي قواعد البيانات المتجهية؟', 'ومتى أنتقل إلى PostgreSQL؟'] as const;

export interface ConversationExampleResult {
  /** Every turn of the English conversation, both sessions, in order. */
  turns: ContextResult[];
  /** The follow-up after the restart, retrieved with its literal words only (no history). */
  literalFollowUp: ContextResult;
  /** What was written to disk after the first session. */
  saved: ConversationHistoryJSON;
  /** The new engine's history right after `setConversation`, before it continued. */
  restored: ConversationHistoryJSON;
  /** The new engine's history at the end of the English conversation. */
  final: ConversationHistoryJSON;
  arabic: ContextResult[];
}

const rule = (character = '─') => character.repeat(100);

async function createEngine(): Promise<ContextEngine> {
  // multiTurn is on by default: up to 20 turns remembered, the last 2 used to enrich a follow-up.
  const engine = new ContextEngine({ config: { composer: { maxContextLength: 700 }, multiTurn: { maxTurns: 20, enrichTurns: 2 } } });
  await engine.index(documents);
  return engine;
}

function printTurn(result: ContextResult, print: (line: string) => void): void {
  print(`> ${result.query}`);
  print(result.effectiveQuery === result.query ? '  effective query: (same — a self-contained question is not enriched)' : `  effective query: ${result.effectiveQuery}`);
  print(`  chunks: ${result.chunks.map((chunk) => chunk.chunk.id).join(', ') || '(none)'}`);
  print(`  context: ${result.context.slice(0, 160).replace(/\s+/g, ' ')}${result.context.length > 160 ? ' …' : ''}`);
}

/**
 * A multi-turn conversation across a restart: asks a question and a follow-up with a pronoun (the
 * engine enriches the follow-up with the earlier turn; the history records the literal question),
 * saves the history with `toJSON` to a file, creates a new engine, restores it with
 * `setConversation`, and continues — the first follow-up of the new engine is understood thanks to
 * the restored turns. Then a second user's Arabic conversation on the same engine.
 */
export async function runConversationExample(print: (line: string) => void = console.log): Promise<ConversationExampleResult> {
  const directory = await mkdtemp(join(tmpdir(), 'zerda-conversation-'));
  const historyFile = join(directory, 'history.json');
  try {
    const turns: ContextResult[] = [];

    print(`${rule('═')}\nSession 1\n${rule()}`);
    const first = await createEngine();
    for (const query of firstSession) {
      const result = await first.run(query);
      turns.push(result);
      printTurn(result, print);
    }
    const saved = first.getHistory()!.toJSON();
    await writeFile(historyFile, JSON.stringify(saved, null, 2));
    print(`\nSaved ${saved.turns.length} turns to ${historyFile} (${JSON.stringify(saved).length} bytes of JSON).`);

    print(`\n${rule('═')}\nSession 2: a new engine (e.g. after a restart), history restored from the file\n${rule()}`);
    const second = await createEngine();
    second.setConversation(JSON.parse(await readFile(historyFile, 'utf8')) as ConversationHistoryJSON);
    const restored = second.getHistory()!.toJSON();
    print(`Restored turns: ${restored.turns.map((turn) => JSON.stringify(turn.query)).join(', ')}`);
    // The same follow-up with its literal words only, for comparison; recordTurn: false keeps it out of the history.
    const literalFollowUp = await second.run(secondSession[0], { useHistory: false, recordTurn: false });
    for (const query of secondSession) {
      const result = await second.run(query);
      turns.push(result);
      printTurn(result, print);
      if (query === secondSession[0]) {
        print(`  without the history the literal question finds: ${literalFollowUp.chunks.map((chunk) => chunk.chunk.id).join(', ') || 'nothing'}`);
      }
    }
    const final = second.getHistory()!.toJSON();
    print(`\nThe history records the literal questions:`);
    for (const turn of final.turns) print(`  ${new Date(turn.timestamp).toISOString()}  ${turn.query}`);

    print(`\n${rule('═')}\nAnother user, in Arabic, on the same engine (setConversation with a fresh history)\n${rule()}`);
    second.setConversation(new ConversationHistory(second.config.multiTurn));
    const arabic: ContextResult[] = [];
    for (const query of arabicThread) {
      const result = await second.run(query);
      arabic.push(result);
      printTurn(result, print);
    }

    return { turns, literalFollowUp, saved, restored, final, arabic };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

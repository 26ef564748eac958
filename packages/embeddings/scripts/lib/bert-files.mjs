// Writes the JSON files transformers.js needs next to an ONNX model to load it as a BERT-style
// feature extractor: tokenizer.json (a WordPiece tokenizer in the Hugging Face `tokenizers` format),
// tokenizer_config.json and config.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];

/**
 * Builds the vocabulary map: the special tokens first (ids 0-4), then `words` in order, skipping
 * duplicates. Returns the token list (index = id).
 */
export function buildVocabulary(words) {
  const tokens = [...SPECIAL_TOKENS];
  const seen = new Set(tokens);
  for (const word of words) {
    if (seen.has(word)) continue;
    seen.add(word);
    tokens.push(word);
  }
  return tokens;
}

function tokenizerJson(tokens, { lowercase }) {
  const vocab = Object.fromEntries(tokens.map((token, id) => [token, id]));
  const idOf = (token) => vocab[token];
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content) => ({
      id: idOf(content),
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: Object.fromEntries(
        ['[CLS]', '[SEP]'].map((token) => [token, { id: token, ids: [idOf(token)], tokens: [token] }]),
      ),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

/**
 * Writes tokenizer.json, tokenizer_config.json and config.json into `directory` (created if needed).
 * `config` is merged into a BERT config (model_type 'bert').
 */
export function writeBertFiles(directory, { tokens, maxLength, lowercase = true, config = {} }) {
  mkdirSync(join(directory, 'onnx'), { recursive: true });
  writeFileSync(join(directory, 'tokenizer.json'), JSON.stringify(tokenizerJson(tokens, { lowercase })));
  writeFileSync(
    join(directory, 'tokenizer_config.json'),
    `${JSON.stringify(
      {
        tokenizer_class: 'BertTokenizer',
        do_lower_case: lowercase,
        model_max_length: maxLength,
        cls_token: '[CLS]',
        sep_token: '[SEP]',
        pad_token: '[PAD]',
        unk_token: '[UNK]',
        mask_token: '[MASK]',
        clean_up_tokenization_spaces: true,
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(
    join(directory, 'config.json'),
    `${JSON.stringify(
      {
        model_type: 'bert',
        architectures: ['BertModel'],
        vocab_size: tokens.length,
        max_position_embeddings: maxLength,
        type_vocab_size: 2,
        pad_token_id: 0,
        ...config,
      },
      null,
      2,
    )}\n`,
  );
}

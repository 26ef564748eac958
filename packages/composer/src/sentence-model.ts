import type { SentenceModel } from './sentence-model-type.js';

/**
 * The sentence model of the value-based fit: logistic-regression weights over the features of
 * `sentenceFeatures`, fitted to predict whether a sentence holds the gold answer, on the train
 * splits of arcd and tydiqa-goldp-en (each dataset weighing the same).
 * Written by `pnpm --filter @zerda/bench fit-composer --write` (see the bench README); the
 * held-out splits were not fitted on.
 */
export const SENTENCE_MODEL: SentenceModel = {
  weights: {
    bias: -5.578,
    rank1: 0.871,
    rank2: 0.626,
    rank3: 0.447,
    rank4to5: 0.073,
    logRank: -0.217,
    strengthRatio: 0.938,
    gapTop: 0.699,
    gapOther: -0.399,
    position0: -0.179,
    position1: 0.489,
    position2: 0.362,
    position3: 0.151,
    logPosition: -0.036,
    piece: 0.341,
    logPiece: -0.428,
    coverage: -0.646,
    coveragePrevious: -0.233,
    coverageNext: -0.777,
    chunkCoverage: -0.814,
    titleCoverage: -0.056,
    logLength: 0.121,
    typeOther: 0.847,
    type_time: -0.905,
    cue_time: -0.236,
    match_time: 1.318,
    type_quantity: -0.758,
    cue_quantity: 0.186,
    match_quantity: 0.742,
    type_person: 0.249,
    cue_person: -0.098,
    match_person: -0.361,
    type_place: 0.539,
    cue_place: 0.023,
    match_place: -0.001,
    type_reason: 0.578,
    cue_reason: -0.082,
    match_reason: 0.31,
    type_definition: -0.139,
    cue_definition: 0.058,
    match_definition: 0.126,
    leadTop: -0.197,
    leadStrength: 1.017,
    secondTop: 0.319,
    coverageStrength: 3.291,
    coverageLead: 0.442,
    matchStrength: 1.615,
    matchCoverage: -0.863,
    titleLead: 0.992,
  },
};

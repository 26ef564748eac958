import { describe, expect, it } from 'vitest';
import { answerCues } from './answer-cues.js';

const only = (text: string) => Object.entries(answerCues(text)).filter(([, present]) => present).map(([type]) => type).sort();

describe('answerCues', () => {
  it('reads times: years, months, centuries (English and Arabic, Arabic-Indic digits folded)', () => {
    expect(answerCues('It was founded in 1920.').time).toBe(true);
    expect(answerCues('Since its introduction in the early 20th century, it grew.').time).toBe(true);
    expect(answerCues('He died on 12 October.').time).toBe(true);
    expect(answerCues('تأسست المدينة عام ١٩٢٠ م').time).toBe(true);
    expect(answerCues('وُلِدَ في القَرْنِ الثامن عشر').time).toBe(true);
    expect(answerCues('توفي في أيلول').time).toBe(true);
    expect(answerCues('The city has many museums.').time).toBe(false);
    expect(answerCues('في المدينة متاحف كثيرة').time).toBe(false);
    expect(answerCues('Room 4711 is on the left.').time).toBe(false);
  });

  it('reads quantities: digits and number words', () => {
    expect(answerCues('an area of 183,285 km2').quantity).toBe(true);
    expect(answerCues('More than a hundred million people live there.').quantity).toBe(true);
    expect(answerCues('يعيش فيها أكثر من عشرين مليون نسمة').quantity).toBe(true);
    expect(answerCues('يبلغ طوله ٦٦٥٠ كيلومترا').quantity).toBe(true);
    expect(answerCues('The river flows north.').quantity).toBe(false);
  });

  it('reads persons: runs of capitalised words not opening the sentence, and Arabic name words', () => {
    expect(answerCues('The alphabet was created by Sejong the Great.').person).toBe(true);
    expect(answerCues('The alphabet was created by the king.').person).toBe(false);
    expect(answerCues('It was won by Sully Prudhomme in 1901.').person).toBe(true);
    expect(answerCues('It was written by Ibn al Haytham.').person).toBe(true);
    expect(answerCues('أسسها الخليفة عبد الملك بن مروان').person).toBe(true);
    expect(answerCues('Paris is large.').person).toBe(false);
  });

  it('reads places, reasons and definitions', () => {
    expect(answerCues('The museum is located in Paris.').place).toBe(true);
    expect(answerCues('تقع المدينة جنوب الأردن').place).toBe(true);
    expect(answerCues('It failed because the engine overheated.').reason).toBe(true);
    expect(answerCues('تأخر القطار بسبب العاصفة').reason).toBe(true);
    expect(answerCues('RAG is a technique that retrieves documents.').definition).toBe(true);
    expect(answerCues('التعلم الآلي هو فرع من الذكاء الاصطناعي').definition).toBe(true);
  });

  it('handles diacritics, tatweel and mixed text, and text without words', () => {
    expect(only('وُلِدَ عامَ ١٩٥٨ في المديـــنة المنورة')).toEqual(['place', 'quantity', 'time']);
    expect(only('')).toEqual([]);
    expect(only('؟؟؟ ، ؛ …')).toEqual([]);
    expect(only('\ud800\u064e\u0640')).toEqual([]);
  });
});

/**
 * A small bilingual corpus written for the examples: short documents about retrieval-augmented
 * generation, search and Arabic language processing, in English and Arabic, with metadata.
 */
export interface ExampleDocument {
  docId: string;
  source: string;
  title: string;
  text: string;
  metadata: { lang: 'en' | 'ar'; topic: string; year: number };
}

export const documents: ExampleDocument[] = [
  {
    docId: 'rag-intro-en',
    source: 'handbook/rag.md',
    title: 'What is retrieval-augmented generation?',
    metadata: { lang: 'en', topic: 'rag', year: 2024 },
    text: `Retrieval-augmented generation (RAG) gives a language model the documents it needs at question time instead of relying only on what it memorised during training. A retriever finds passages that are relevant to the question, and the passages are placed in the prompt as context. The model then answers from that context and can cite it.

RAG reduces hallucinations because the answer is grounded in text the user can check. It also keeps answers current: updating the document collection updates the answers, with no retraining. The quality of a RAG system depends mostly on the context it builds: which passages are chosen, how many fit the budget, and in which order they appear.`,
  },
  {
    docId: 'rag-intro-ar',
    source: 'handbook/rag-ar.md',
    title: 'ما هو التوليد المعزز بالاسترجاع؟',
    metadata: { lang: 'ar', topic: 'rag', year: 2024 },
    text: `التوليد المعزَّز بالاسترجاع (RAG) تقنيةٌ تمنح النموذجَ اللغوي الوثائقَ التي يحتاجها وقتَ السؤال بدلاً من الاعتماد على ما حفظه أثناء التدريب فقط. يبحث المسترجِع عن المقاطع ذات الصلة بالسؤال، ثم توضع هذه المقاطع في الموجِّه بوصفها سياقاً، فيجيب النموذج اعتماداً عليها ويستشهد بها.

تقلّل هذه التقنية من الهلوسة لأن الإجابة ترتكز على نصوص يستطيع المستخدم التحقق منها، كما تُبقي الإجابات محدَّثة: فتحديث مجموعة الوثائق يحدِّث الإجابات دون إعادة تدريب. وتعتمد جودة النظام أساساً على السياق الذي يبنيه: أيّ المقاطع تُختار، وكم منها يتسع له الحدّ المسموح، وبأيّ ترتيب تظهر.`,
  },
  {
    docId: 'bm25-en',
    source: 'handbook/search.md',
    title: 'Keyword search with BM25',
    metadata: { lang: 'en', topic: 'search', year: 2023 },
    text: `BM25 ranks documents by how often the query terms occur in them, discounted by how common each term is across the collection and normalised by document length. Two parameters shape it: k1 controls how quickly repeated occurrences stop adding to the score, and b controls how strongly long documents are penalised.

Keyword search is precise for names, codes and rare terms, where embeddings often blur the difference between similar words. It needs good text analysis: tokenization, normalization and stemming decide which words count as the same term.`,
  },
  {
    docId: 'vectors-en',
    source: 'handbook/search.md',
    title: 'Vector search and embeddings',
    metadata: { lang: 'en', topic: 'search', year: 2024 },
    text: `An embedding model turns a passage into a vector so that passages with similar meaning lie close together. Vector search finds the nearest vectors to the query's vector, usually by cosine similarity. Exact search compares the query with every vector; approximate indexes such as HNSW build a navigable graph and answer in logarithmic time with a small loss of recall.

Hybrid retrieval combines keyword and vector results, for example with reciprocal rank fusion, so that exact term matches and paraphrases both reach the candidate list.`,
  },
  {
    docId: 'arabic-nlp-ar',
    source: 'handbook/arabic.md',
    title: 'معالجة اللغة العربية في البحث',
    metadata: { lang: 'ar', topic: 'arabic', year: 2023 },
    text: `تحتاج اللغة العربية إلى معالجة خاصة قبل الفهرسة. فالحركات مثل الفتحة والضمة والكسرة تُحذف، وتُحذف التطويلة في كلمات مثل "العـــربية"، وتُوحَّد أشكال الألف (أ، إ، آ) إلى ألف مجردة، والألف المقصورة إلى ياء.

كما أن الكلمة العربية تحمل سوابق ولواحق كثيرة: فكلمات "المكتبة" و"بالمكتبات" و"ومكتبتها" ترجع إلى جذر واحد. لذلك يستخدم محرك البحث تجذيعاً خفيفاً يزيل "ال" و"وال" و"بال" واللواحق الشائعة، فيطابق الاستعلامُ الوثائقَ رغم اختلاف الصيغ.`,
  },
  {
    docId: 'arabic-nlp-en',
    source: 'handbook/arabic-en.md',
    title: 'Why Arabic needs its own text analysis',
    metadata: { lang: 'en', topic: 'arabic', year: 2023 },
    text: `Arabic words carry optional diacritics, the tatweel stretching character, several forms of alef and attached prefixes such as the article al- and the conjunction wa-. A search engine that does not normalise these treats "الكتاب" and "والكتاب" as unrelated words.

Light stemming removes common prefixes and suffixes without full morphological analysis. It is fast, predictable and improves recall on Arabic question answering collections.`,
  },
  {
    docId: 'chunking-en',
    source: 'handbook/chunking.md',
    title: 'Chunking documents',
    metadata: { lang: 'en', topic: 'chunking', year: 2024 },
    text: `Documents are split into chunks before indexing because a model's context is limited and retrieval works best on focused passages. Good chunkers follow the structure of the text: sections under their headings, whole paragraphs, whole list items, and code blocks that are never cut inside a line.

Chunks that are too small lose their context; chunks that are too large crowd other relevant passages out of the budget. An overlap of a sentence or two between neighbouring chunks keeps ideas that span a boundary retrievable.`,
  },
  {
    docId: 'budget-ar',
    source: 'handbook/budget-ar.md',
    title: 'ميزانية السياق',
    metadata: { lang: 'ar', topic: 'context', year: 2025 },
    text: `لكل نموذج لغوي حدٌّ أقصى لطول السياق يقاس بالرموز (tokens) أو بالحروف. لذلك يجب أن يختار نظام الاسترجاع أفضل المقاطع ضمن هذه الميزانية: يضع المقاطع الكاملة حسب ترتيبها ما دامت تتسع، ثم يضغط المقطع التالي فيحتفظ بالجمل الأقرب إلى السؤال.

ولا يجوز قطع الكلمة في منتصفها، بل يُقطع النص عند حدود الجمل أو الكلمات. وعند تعدد الأسئلة تُوزَّع الميزانية بينها بحسب تعقيد كل سؤال.`,
  },
  {
    docId: 'ranking-en',
    source: 'handbook/ranking.md',
    title: 'Ranking on several signals',
    metadata: { lang: 'en', topic: 'context', year: 2025 },
    text: `Retrieval scores alone do not decide what belongs in the context. A composite ranker adds the share of query keywords a chunk contains, the trustworthiness of its source, how recent it is, and where it sits in its document. Each factor gets a weight, and every factor is recorded so that a developer can see why a chunk ranked where it did.

Near-duplicate chunks waste the budget: the same paragraph copied into two documents should appear once. MinHash over word shingles finds such pairs quickly.`,
  },
  {
    docId: 'guard-en',
    source: 'handbook/safety.md',
    title: 'Checking the context before the model sees it',
    metadata: { lang: 'en', topic: 'safety', year: 2025 },
    text: `A context guard checks the composed context: it warns when the context is empty, when it exceeds the budget, when the best chunk is barely relevant, and when an Arabic question receives only English passages. It also looks for prompt injection, text inside a retrieved document that tries to give the model new instructions, such as a line telling it to ignore previous instructions.`,
  },
  {
    docId: 'vector-db-ar',
    source: 'handbook/vector-db-ar.md',
    title: 'قواعد البيانات المتجهية',
    metadata: { lang: 'ar', topic: 'search', year: 2024 },
    text: `تخزّن قواعد البيانات المتجهية التمثيلاتِ العددية (المتجهات) للنصوص، وتبحث عن أقرب المتجهات إلى متجه السؤال. يمكن البدء بمخزن داخل الذاكرة دون أي خادم، ثم الانتقال إلى PostgreSQL مع الامتداد pgvector عندما يكبر حجم البيانات، دون تغيير منطق التطبيق.

ويستخدم فهرس HNSW رسماً بيانياً متعدد الطبقات للوصول إلى أقرب الجيران بسرعة كبيرة مع دقة عالية.`,
  },
  {
    docId: 'conversation-en',
    source: 'handbook/conversation.md',
    title: 'Follow-up questions in a conversation',
    metadata: { lang: 'en', topic: 'context', year: 2024 },
    text: `In a conversation, follow-up questions such as "and how is it evaluated?" depend on earlier turns. A conversation history keeps recent questions and the keywords of their contexts, so that a short follow-up can be enriched before retrieval. The literal question is still what the history records.`,
  },
];

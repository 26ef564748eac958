import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitepress';
import { slugify } from './slug.mjs';

const packagesSidebar = fileURLToPath(new URL('../packages/sidebar.json', import.meta.url));
const packages: { text: string; link: string }[] = existsSync(packagesSidebar) ? JSON.parse(readFileSync(packagesSidebar, 'utf8')) : [];

export default defineConfig({
  title: 'zerda',
  description: 'Context engineering for retrieval-augmented generation, in TypeScript — Arabic as well as English.',
  lang: 'en',
  // Every internal link must resolve: a dead one fails the build (the browser test checks anchors too).
  ignoreDeadLinks: false,
  srcExclude: ['node_modules/**', 'scripts/**', 'README.md'],
  lastUpdated: false,
  markdown: { anchor: { slugify } },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'Concepts', link: '/concepts/pipeline' },
      { text: 'Packages', link: '/packages/context' },
      { text: 'API', link: '/api/' },
      { text: 'Benchmarks', link: '/benchmarks' },
    ],
    sidebar: [
      {
        text: 'Guide',
        items: [
          { text: 'Getting started', link: '/guide/getting-started' },
          { text: 'The inspector', link: '/inspector' },
          { text: 'Arabic', link: '/arabic' },
          { text: 'From LangChain.js or LlamaIndex.TS', link: '/migration' },
          { text: 'Benchmarks', link: '/benchmarks' },
          { text: 'README', link: '/readme' },
        ],
      },
      {
        text: 'Concepts',
        items: [
          { text: 'The pipeline', link: '/concepts/pipeline' },
          { text: 'Budgets', link: '/concepts/budgets' },
          { text: 'Answer-in-context', link: '/concepts/answer-in-context' },
          { text: 'Scopes', link: '/concepts/scopes' },
        ],
      },
      { text: 'Packages', collapsed: true, items: packages },
      { text: 'API reference', link: '/api/' },
    ],
    search: { provider: 'local' },
    outline: { level: [2, 3] },
  },
});

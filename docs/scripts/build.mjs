#!/usr/bin/env node
// Builds the documentation site: generates the pages that come from the repository (one per public
// package from its README, the root README, the benchmarks from BENCHMARKS.md, the API reference
// from the TSDoc comments by TypeDoc), then runs `vitepress build`. Generated pages are not
// committed (see .gitignore): they are rendered from their sources on every build.
//   node scripts/build.mjs                 generate + build into .vitepress/dist
//   node scripts/build.mjs --prepare-only  generate only (for `vitepress dev`)
//   node scripts/build.mjs --reuse-api     keep the previous API reference (quicker rebuilds)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publicPackages } from '../../scripts/public-packages.mjs';
import { slugify } from '../.vitepress/slug.mjs';

const docs = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(docs, '..');
const images = join(docs, 'public', 'generated');

/** Folder name (under packages/) of every public package. */
const packageFolders = new Set(publicPackages(root).map((pkg) => relative(join(root, 'packages'), pkg.dir)));

/**
 * Rewrites the links of a Markdown file at `sourceFile` for a page at `pageRoute` (a site path):
 * a package folder becomes its package page, the root README its page, BENCHMARKS.md the benchmarks
 * page, an image is copied under /generated/; any other repository path (source files, examples)
 * is not part of the site and keeps its text, as code, without a link.
 */
export function rewriteLinks(markdown, sourceFile) {
  const sourceDir = dirname(sourceFile);
  const rewrite = (target) => {
    if (/^(https?:|mailto:|#)/.test(target)) return target;
    const [path, hash = ''] = target.split('#');
    const anchor = hash ? `#${hash}` : '';
    const absolute = resolve(sourceDir, path);
    const inRepo = relative(root, absolute).split('\\').join('/');
    if (inRepo === 'README.md' || inRepo === '') return `/readme${anchor}`;
    if (inRepo === 'BENCHMARKS.md') return `/benchmarks${anchor}`;
    const packageMatch = /^packages\/([^/]+)(?:\/README\.md)?\/?$/.exec(inRepo);
    if (packageMatch && packageFolders.has(packageMatch[1])) return `/packages/${packageMatch[1]}${anchor}`;
    if (/\.(png|svg|jpe?g|gif|webp)$/i.test(inRepo) && existsSync(absolute)) {
      const name = inRepo.replace(/[\\/]/g, '-');
      mkdirSync(images, { recursive: true });
      cpSync(absolute, join(images, name));
      return `/generated/${name}`;
    }
    return undefined;
  };
  return markdown.replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (whole, bang, text, target) => {
    const link = rewrite(target);
    if (link) return `${bang}[${text}](${link})`;
    if (bang) return text;
    return text.startsWith('`') ? text : `\`${text}\``;
  });
}

/** HTML a README may mean as HTML; any other `<word` in prose is text (`<a role>`, `<paths…>`). */
const HTML_TAGS = /^(<a\s+href=[^<>]*>|<\/a>|<\/?(b|i|em|strong|code|span|div|p|br|img|sup|sub|kbd|details|summary|table|thead|tbody|tr|td|th|ul|ol|li|pre|picture|source)(\s[^<>]*)?\/?>)/i;

/**
 * VitePress reads Markdown as Vue templates: outside code fences and code spans, escape `{{` (an
 * interpolation) and every `<` that does not open a known HTML tag (Vue would want it closed).
 */
function escapeForVue(markdown) {
  let inFence = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        inFence = !inFence;
        return line;
      }
      if (inFence) return line;
      return line
        .split(/(`+[^`]*`+)/)
        .map((part, index) => (index % 2 === 1 ? part : part.replace(/\{\{/g, '&#123;&#123;').replace(/<(?=[^\s])/g, (lt, offset, whole) => (HTML_TAGS.test(whole.slice(offset)) ? lt : '&lt;'))))
        .join('');
    })
    .join('\n');
}

function page(target, frontmatter, body) {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, `---\n${Object.entries(frontmatter).map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join('\n')}\n---\n\n${body}`);
}

function generatePages() {
  for (const folder of ['packages', ...(reuseApi ? [] : ['api']), 'public/generated']) rmSync(join(docs, folder), { recursive: true, force: true });
  rmSync(join(docs, 'benchmarks.md'), { force: true });
  rmSync(join(docs, 'readme.md'), { force: true });

  const sidebar = [];
  for (const pkg of publicPackages(root)) {
    const folder = relative(join(root, 'packages'), pkg.dir);
    const readme = join(pkg.dir, 'README.md');
    const body = rewriteLinks(readFileSync(readme, 'utf8'), readme);
    page(join(docs, 'packages', `${folder}.md`), { title: pkg.name, editLink: false }, `${escapeForVue(body)}\n\n---\n\nAPI reference: [${pkg.name}](/api/${folder}/src).\n`);
    sidebar.push({ text: pkg.name, link: `/packages/${folder}` });
  }
  writeFileSync(join(docs, 'packages', 'sidebar.json'), `${JSON.stringify(sidebar, null, 2)}\n`);

  const benchmarks = join(root, 'BENCHMARKS.md');
  page(join(docs, 'benchmarks.md'), { title: 'Benchmarks', outline: [2, 3] }, `::: info Rendered from BENCHMARKS.md\nThis page is BENCHMARKS.md of the repository as of this build: one run of \`pnpm bench\`, every number measured in that run.\n:::\n\n${escapeForVue(rewriteLinks(readFileSync(benchmarks, 'utf8'), benchmarks))}`);

  const readme = join(root, 'README.md');
  page(join(docs, 'readme.md'), { title: 'README' }, escapeForVue(rewriteLinks(readFileSync(readme, 'utf8'), readme)));
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: docs, stdio: 'inherit' });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function generateApiReference() {
  const packages = publicPackages(root);
  // One module per package entry point (subpaths too), named after the package.
  const entryPoints = [];
  for (const pkg of packages) {
    for (const [subpath, conditions] of Object.entries(pkg.manifest.exports ?? {})) {
      const types = typeof conditions === 'string' ? conditions : conditions.types;
      if (!types) continue;
      const source = join(pkg.dir, types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'));
      if (existsSync(source)) entryPoints.push(source);
      void subpath;
    }
  }
  const bin = join(docs, 'node_modules', '.bin', process.platform === 'win32' ? 'typedoc.cmd' : 'typedoc');
  run(bin, ['--options', join(docs, 'typedoc.json'), ...entryPoints.flatMap((entry) => ['--entryPoints', entry])]);
  // TypeDoc names each module by its path ("context/src", "cli/src/inspector"): name it as it is imported.
  const importName = (modulePath) => {
    const [folder, , ...rest] = modulePath.split('/');
    const pkg = packages.find((candidate) => relative(join(root, 'packages'), candidate.dir) === folder);
    return pkg ? [pkg.name, ...rest].join('/') : modulePath;
  };
  const index = join(docs, 'api', 'index.md');
  writeFileSync(index, readFileSync(index, 'utf8').replace('# zerda API reference', '# API reference\n\nGenerated by TypeDoc from the TSDoc comments of every public package, at each build of this site.').replace(/^- \[([^\]]+)\]/gm, (line, name) => `- [${importName(name)}]`));
  for (const pkg of packages) {
    const folder = relative(join(root, 'packages'), pkg.dir);
    for (const file of [join(docs, 'api', folder, 'src.md'), ...['inspector', 'datasets', 'testing', 'crash-states'].map((sub) => join(docs, 'api', folder, 'src', `${sub}.md`))]) {
      if (!existsSync(file)) continue;
      const text = readFileSync(file, 'utf8');
      writeFileSync(file, text.replace(/^# (.+)$/m, (heading, name) => `# ${importName(name)}`));
    }
  }
}

/** The anchors VitePress gives the headings of a Markdown text (duplicates numbered -1, -2 … as markdown-it-anchor does). */
function anchorsOf(markdown) {
  const anchors = new Set();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const heading = !inFence && /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\\(.)/g, '$1').replace(/[`*]/g, '').replace(/<[^>]*>/g, '');
    const slug = slugify(text);
    let unique = slug;
    for (let n = 1; anchors.has(unique); n++) unique = `${slug}-${n}`;
    anchors.add(unique);
  }
  return anchors;
}

/**
 * TypeDoc's Markdown links number an anchor for a name that is both a type and a value (`-1`) even
 * when only one heading is written; point such a link at the heading that exists, or at its page.
 */
function repairApiAnchors() {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith('.md')) files.push(join(dir, entry.name));
    }
  };
  walk(join(docs, 'api'));
  const anchors = new Map(files.map((file) => [file, anchorsOf(readFileSync(file, 'utf8'))]));
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const repaired = text.replace(/\]\(([^)#\s]*)#([^)\s]+)\)/g, (whole, path, fragment) => {
      const target = path ? resolve(dirname(file), path) : file;
      const known = anchors.get(target);
      if (!known || known.has(fragment)) return whole;
      const base = fragment.replace(/-\d+$/, '');
      if (known.has(base)) return `](${path}#${base})`;
      return `](${path || `./${basename(file)}`})`;
    });
    if (repaired !== text) writeFileSync(file, repaired);
  }
}

const prepareOnly = process.argv.includes('--prepare-only');
// --reuse-api keeps the API reference of the previous build (for quick rebuilds of the pages).
const reuseApi = process.argv.includes('--reuse-api') && existsSync(join(docs, 'api', 'index.md'));
generatePages();
if (!reuseApi) {
  generateApiReference();
  repairApiAnchors();
}
if (!prepareOnly) run(join(docs, 'node_modules', '.bin', 'vitepress'), ['build', '.']);

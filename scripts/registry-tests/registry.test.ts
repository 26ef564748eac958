// Publishing tested for real: every public package is released the way a maintainer releases it
// (scripts/release.mjs on a copy of the workspace: `changeset version`, then `changeset publish`,
// which runs `pnpm publish` and rewrites `workspace:` ranges) into a private Verdaccio on 127.0.0.1;
// then, in empty folders outside the workspace, plain npm, pnpm and yarn (classic) install the
// packages from it, and each consumer runs the README's ESM quickstart, a CommonJS require(),
// TypeScript builds (node16 ESM, node16/node20 CommonJS, bundler) against the shipped .d.ts,
// `npx @zerda/cli index … && npx @zerda/cli query …` on an Arabic + English folder, and each
// bridge's README example with its framework installed as a peer (ai with its test models,
// @langchain/core, @modelcontextprotocol/sdk), plus OpenTelemetry at the README's pairing.
//
// Skips with a message when Verdaccio cannot start or the npm registry cannot be reached through
// it (third-party packages come from there). `ZERDA_REGISTRY_MANAGERS=npm,pnpm` runs fewer clients.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module without declarations
import { release } from '../release.mjs';
// @ts-expect-error plain ES module without declarations
import { pnpmCommand } from '../public-packages.mjs';
import { startLocalRegistry, upstreamRegistry, type LocalRegistry } from './local-registry.js';

const root = resolve(import.meta.dirname, '../..');
const fixtures = join(import.meta.dirname, 'consumer');
const managers = (process.env.ZERDA_REGISTRY_MANAGERS ?? 'npm,pnpm,yarn').split(',').map((name) => name.trim()).filter(Boolean);

/** The versions the consumers install beside zerda: the bridges' tested peers, TypeScript, and the OpenTelemetry pair the README states. */
const THIRD_PARTY = ['ai@7.0.173', '@langchain/core@1.4.0', '@modelcontextprotocol/sdk@1.32.2', 'typescript@5.9.3', '@types/node@20.19.43', '@opentelemetry/api@1.9.1', '@opentelemetry/sdk-trace-base@2.12.1'];
const ZERDA = ['@zerda/context', '@zerda/cli', '@zerda/ai-sdk', '@zerda/langchain', '@zerda/mcp'];

let work = '';
let registry: LocalRegistry | undefined;
let skipReason: string | undefined;
let versions: Record<string, string> = {};
const installs = new Map<string, Promise<Result>>();

interface Result {
  status: number | null;
  output: string;
}

/** A consumer's environment: nothing of the workspace's own npm/pnpm configuration leaks into it, `extraEnv` added. */
function consumerEnv(extraEnv: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  for (const key of Object.keys(env)) if (/^(npm_config_|npm_package_|pnpm_|PNPM_)/i.test(key)) delete env[key];
  return { ...env, ...extraEnv };
}

function run(command: string, args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}, timeout = 300_000): Result {
  const env = consumerEnv(extraEnv);
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout, maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}` };
}

/** `run` without blocking, so that the three package managers install at the same time. */
function runAsync(command: string, args: string[], cwd: string, timeout = 600_000): Promise<Result> {
  return new Promise((resolveResult) => {
    const child = spawn(command, args, { cwd, env: consumerEnv(), timeout });
    let output = '';
    child.stdout.on('data', (data) => (output += data));
    child.stderr.on('data', (data) => (output += data));
    child.on('error', (error) => resolveResult({ status: null, output: `${output}${String(error)}` }));
    child.on('close', (status) => resolveResult({ status, output }));
  });
}

function expectOk(result: Result, what: string): string {
  expect(result.status, `${what} failed:\n${result.output.slice(-6000)}`).toBe(0);
  return result.output;
}

/** The first fenced code block after the heading `heading` in a README. */
function readmeBlock(file: string, heading: string): string {
  const text = readFileSync(join(root, file), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${file} has no heading "${heading}"`);
  const block = /```(?:ts|js|typescript)\n([\s\S]*?)```/.exec(text.slice(start));
  if (!block) throw new Error(`${file}: no code block after "${heading}"`);
  return block[1]!;
}

/** Writes an ES module program made of fixture preambles, a README block and checks (TypeScript syntax stripped). */
function writeProgram(folder: string, name: string, parts: string[]): string {
  const source = parts.join('\n');
  const { outputText, diagnostics } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 }, reportDiagnostics: true });
  if (diagnostics?.length) throw new Error(`${name}: ${ts.flattenDiagnosticMessageText(diagnostics[0]!.messageText, '\n')}`);
  const path = join(folder, name);
  writeFileSync(path, outputText);
  return path;
}

const fixture = (name: string) => readFileSync(join(fixtures, name), 'utf8');

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'zerda-registry-'));
  try {
    registry = await startLocalRegistry(join(work, 'registry'));
  } catch (error) {
    skipReason = `the local registry (Verdaccio) could not start: ${(error as Error).message.split('\n')[0]} — run \`pnpm install\` at the root (verdaccio is a devDependency)`;
    return;
  }
  const probe = await fetch(`${registry.url}typescript`).catch((error: Error) => error);
  if (probe instanceof Error || !probe.ok) {
    skipReason = `the npm registry (${upstreamRegistry()}) cannot be reached through Verdaccio's uplink (${probe instanceof Error ? probe.message : probe.status}); third-party packages cannot install`;
    return;
  }
  const released = release({ copy: true, registry: registry.url, env: { npm_config_userconfig: registry.userConfig, NPM_CONFIG_PROVENANCE: 'false' } });
  versions = released.versions;
  rmSync(released.cwd, { recursive: true, force: true });
  // The installs are network-bound: all three at once, each test group awaiting its own.
  for (const manager of managers) installs.set(manager, install(manager));
}, 600_000);

/** Installs zerda, the bridges' peers, TypeScript and OpenTelemetry into an empty folder outside the workspace with `manager`. */
function install(manager: string): Promise<Result> {
  const folder = join(work, `consumer-${manager}`);
  mkdirSync(join(folder, 'docs'), { recursive: true });
  for (const [name, text] of Object.entries(CORPUS)) writeFileSync(join(folder, 'docs', name), text);
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: `zerda-consumer-${manager}`, version: '1.0.0', private: true }, null, 2));
  writeFileSync(join(folder, '.npmrc'), `registry=${registry!.url}\n`);
  const specs = [...ZERDA, ...THIRD_PARTY];
  const cache = join(work, `cache-${manager}`);
  if (manager === 'npm') return runAsync('npm', ['install', '--no-audit', '--no-fund', '--cache', cache, ...specs], folder);
  if (manager === 'pnpm') {
    // pnpm 12 refuses packages published less than a day ago by default; these were published seconds ago.
    writeFileSync(join(folder, 'pnpm-workspace.yaml'), 'minimumReleaseAge: 0\n');
    return runAsync(pnpmCommand(), ['add', '--store-dir', join(cache, 'store'), ...specs], folder);
  }
  if (manager === 'yarn') {
    writeFileSync(join(folder, '.yarnrc'), `registry "${registry!.url}"\n`);
    // Yarn classic enforces engines: ai@7 declares Node >= 22 (the README's bridge table says so);
    // on Node 20 it installs only with --ignore-engines, as npm and pnpm install it with a warning.
    const ignoreEngines = Number(process.versions.node.split('.')[0]) < 22 ? ['--ignore-engines'] : [];
    return runAsync(join(root, 'node_modules', '.bin', 'yarn'), ['add', '--non-interactive', '--no-progress', ...ignoreEngines, '--cache-folder', cache, '--registry', registry!.url, ...specs], folder);
  }
  return Promise.resolve({ status: 2, output: `unknown package manager ${manager}` });
}

afterAll(async () => {
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * GET `url`, once more when the connection was closed under it: after minutes of installs, a kept-alive
 * socket to Verdaccio may have been closed by its idle timeout just as the request reuses it
 * (undici: "other side closed"), which says nothing about the registry's content.
 */
async function fetchOnce(url: string): Promise<Response> {
  try {
    return await fetch(url);
  } catch (error) {
    const code = ((error as { cause?: { code?: string } }).cause ?? {}).code;
    if (code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET') throw error;
    return fetch(url);
  }
}

describe('publishing to a local registry', () => {
  it('publishes every public package at its released version, workspace ranges rewritten', async (context) => {
    if (skipReason) return context.skip(skipReason);
    expect(Object.keys(versions).length).toBeGreaterThan(15);
    for (const [name, version] of Object.entries(versions)) {
      const response = await fetchOnce(`${registry!.url}${name.replace('/', '%2f')}`);
      expect(response.ok, `${name} is in the registry`).toBe(true);
      const manifest = (await response.json()) as { versions: Record<string, Record<string, Record<string, string>>> };
      const published = manifest.versions[version];
      expect(published, `${name}@${version}`).toBeDefined();
      const ranges = JSON.stringify([published!.dependencies, published!.peerDependencies, published!.optionalDependencies]);
      expect(ranges, `${name}: no workspace: range reaches users`).not.toContain('workspace:');
    }
  });
});

const CORPUS = {
  'hours-ar.md': '# مكتبة الحي\n\nتَفتَح المكتبـــة أبوابها من الساعة التاسعة صباحًا حتى الخامسة مساءً، من الأحد إلى الخميس؛ وتغلق يوم الجمعة.\n',
  'hours-en.md': '# The neighbourhood library\n\nThe library opens at 9 am and closes at 5 pm, Sunday to Thursday; it is closed on Fridays.\n',
  'notes.txt': 'Bicycle racks are by the east door. لا توجد مواقف للسيارات أمام المكتبة؟ نعم، خلفها.\n',
};

for (const manager of managers) {
  describe(`a ${manager} consumer`, () => {
    let folder = '';
    let installed: Result | undefined;

    beforeAll(async () => {
      if (skipReason) return;
      folder = join(work, `consumer-${manager}`);
      installed = await installs.get(manager);
    }, 900_000);

    const ready = (context: { skip: (note?: string) => never }) => {
      if (skipReason) context.skip(skipReason);
      expectOk(installed!, `${manager} install`);
    };

    it('installs zerda with the bridges, their peers and OpenTelemetry at the README pairing', (context) => {
      ready(context);
      for (const name of ZERDA) {
        const manifest = JSON.parse(readFileSync(join(folder, 'node_modules', ...name.split('/'), 'package.json'), 'utf8'));
        expect(manifest.version).toBe(versions[name]);
      }
    });

    it("runs the README's ESM quickstart", (context) => {
      ready(context);
      const usage = readmeBlock('README.md', '## Usage');
      const program = writeProgram(folder, 'quickstart.mjs', [
        usage,
        "if (!result.context.includes('التوليد المعزز بالاسترجاع')) throw new Error('the Arabic passage is not in the context: ' + result.context);",
        "if (result.context.includes('Retrieval-augmented')) throw new Error('the lang filter let the English passage in');",
        "const again = await reopened.run('ما هو التوليد المعزز بالاسترجاع؟', { metadataFilters: { lang: 'ar' } });",
        "if (again.context !== result.context) throw new Error('the reopened snapshot answers differently');",
      ]);
      const output = expectOk(run(process.execPath, [program], folder), 'README quickstart');
      expect(output).toContain('التوليد المعزز بالاسترجاع');
    });

    it('loads every package with require() from CommonJS, the same modules as import()', (context) => {
      ready(context);
      cpSync(join(fixtures, 'require-check.cjs'), join(folder, 'require-check.cjs'));
      expect(expectOk(run(process.execPath, ['require-check.cjs'], folder), 'CommonJS require')).toMatch(/require ok: 1 chunk/);
    });

    /** Writes a TypeScript project under ts/<name> (`files`: target name → fixture) and runs the consumer's own tsc on it. */
    function typescriptProject(name: string, files: Record<string, string>, compilerOptions: Record<string, unknown>): void {
      const dir = join(folder, 'ts', name);
      mkdirSync(dir, { recursive: true });
      for (const [file, source] of Object.entries(files)) writeFileSync(join(dir, file), fixture(source));
      const tsconfig = { compilerOptions: { target: 'es2022', lib: ['es2023'], types: ['node'], strict: true, skipLibCheck: false, outDir: 'out', rootDir: '.', ...compilerOptions }, files: Object.keys(files) };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
      expectOk(run(process.execPath, [join(folder, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], folder), `tsc (${name})`);
    }

    function expectLibraryHours(output: string): void {
      const result = JSON.parse(output.trim().split('\n').pop()!) as { context: string; html: number };
      expect(result.context).toContain('التاسعة صباحًا');
      expect(result.html).toBeGreaterThan(1000);
    }

    it('builds and runs a TypeScript consumer against the shipped .d.ts: moduleResolution node16, as an ES module and as CommonJS', (context) => {
      ready(context);
      // One program holds both: .mts compiles as an ES module, .cts as CommonJS; module node20 lets
      // CommonJS require() the ES modules, as Node >= 20.19 does. Every declaration file is checked.
      typescriptProject('node16', { 'consumer.mts': 'typescript-consumer.ts', 'consumer.cts': 'typescript-consumer.ts' }, { module: 'node20', moduleResolution: 'node16' });
      const question = JSON.stringify('متى تفتح المكتبة؟');
      expectLibraryHours(expectOk(run(process.execPath, ['--input-type=module', '-e', `const { contextFor } = await import('./ts/node16/out/consumer.mjs'); console.log(JSON.stringify(await contextFor(${question})));`], folder), 'the compiled ES module consumer'));
      expectLibraryHours(expectOk(run(process.execPath, ['-e', `require('./ts/node16/out/consumer.cjs').contextFor(${question}).then((r) => console.log(JSON.stringify(r)))`], folder), 'the compiled CommonJS consumer'));
    });

    it('type-checks the TypeScript consumer against the shipped .d.ts with moduleResolution bundler', (context) => {
      ready(context);
      typescriptProject('bundler', { 'consumer.ts': 'typescript-consumer.ts' }, { module: 'preserve', moduleResolution: 'bundler', noEmit: true });
    });

    it("type-checks a program using the bridges' types (ai, @langchain/core, MCP), ES module and CommonJS", (context) => {
      ready(context);
      typescriptProject('bridges', { 'bridges.mts': 'typescript-bridges.ts', 'bridges.cts': 'typescript-bridges.ts' }, { module: 'node20', moduleResolution: 'node16', lib: ['es2023', 'dom'], skipLibCheck: true, noEmit: true });
    });

    // npx for npm and yarn installs; in a pnpm install, npx reads pnpm's whole symlinked node_modules
    // before it runs anything (minutes on a loaded machine), so there it is pnpm's own `pnpm exec`.
    const cli = (args: string[]) => (manager === 'pnpm' ? run(pnpmCommand(), ['exec', 'zerda', ...args], folder) : run('npx', ['--no-install', '@zerda/cli', ...args], folder));
    it(`indexes and queries an Arabic + English folder with ${manager === 'pnpm' ? 'pnpm exec zerda' : 'npx @zerda/cli'}`, (context) => {
      ready(context);
      expectOk(cli(['index', './docs']), 'zerda index');
      const arabic = expectOk(cli(['query', 'ما هي ساعات عمل المكتبة؟']), 'zerda query (Arabic)');
      expect(arabic).toContain('التاسعة صباحًا');
      const english = expectOk(cli(['query', 'When does the library close?', '--format', 'json']), 'zerda query (English)');
      const parsed = JSON.parse(english.slice(english.indexOf('{'), english.lastIndexOf('}') + 1)) as { context: string };
      expect(parsed.context).toContain('closes at 5 pm');
    });

    it("runs @zerda/ai-sdk's README examples (tool, middleware) with ai's test models", (context) => {
      ready(context);
      const tool = writeProgram(folder, 'ai-sdk-tool.mjs', [
        fixture('bridge-chunks.ts'),
        fixture('ai-sdk-tool-model.ts'),
        readmeBlock('packages/ai-sdk/README.md', '## A tool the model calls'),
        "const citations = steps[0].toolResults[0].output.citations;",
        "if (citations[0]?.docId !== 'bm25' || !text.includes('[1]')) throw new Error('tool round trip: ' + JSON.stringify({ text, citations }));",
        "console.log('ai-sdk tool ok: ' + citations.length + ' citation(s)');",
      ]);
      expect(expectOk(run(process.execPath, [tool], folder), 'ai-sdk tool example')).toContain('ai-sdk tool ok');
      const middleware = writeProgram(folder, 'ai-sdk-middleware.mjs', [
        fixture('bridge-chunks.ts'),
        fixture('ai-sdk-middleware-setup.ts'),
        readmeBlock('packages/ai-sdk/README.md', '## A middleware that adds the context to every call'),
        "const metadata = result.providerMetadata?.zerda;",
        "if (metadata?.citations?.[0]?.docId !== 'rag-ar') throw new Error('middleware metadata: ' + JSON.stringify(metadata));",
        "if (!JSON.stringify(model.doGenerateCalls[0].prompt).includes('التوليد المعزز بالاسترجاع')) throw new Error('the context is not in the prompt');",
        "console.log('ai-sdk middleware ok');",
      ]);
      expect(expectOk(run(process.execPath, [middleware], folder), 'ai-sdk middleware example')).toContain('ai-sdk middleware ok');
    });

    it("runs @zerda/langchain's README example with @langchain/core", (context) => {
      ready(context);
      const program = writeProgram(folder, 'langchain.mjs', [
        fixture('bridge-chunks.ts'),
        readmeBlock('packages/langchain/README.md', '## Smallest example'),
        "if (documents[0].metadata.docId !== 'rrf' || documents[0].metadata.citation !== 1) throw new Error(JSON.stringify(documents[0].metadata));",
        "console.log('langchain ok: ' + documents.length + ' document(s)');",
      ]);
      expect(expectOk(run(process.execPath, [program], folder), 'langchain example')).toContain('langchain ok');
    });

    it("serves @zerda/mcp's README server example to an MCP client over stdio", (context) => {
      ready(context);
      const server = writeProgram(folder, 'mcp-server.mjs', [fixture('bridge-chunks.ts'), readmeBlock('packages/mcp/README.md', '## In your own server')]);
      cpSync(join(fixtures, 'mcp-client.mjs'), join(folder, 'mcp-client.mjs'));
      expect(expectOk(run(process.execPath, ['mcp-client.mjs', server], folder, {}, 120_000), 'MCP client against the README server')).toContain('mcp ok');
    });

    it('records spans with the README OpenTelemetry pairing (@opentelemetry/api 1.9.1 + sdk-trace-base 2.12.1)', (context) => {
      ready(context);
      const program = join(folder, 'otel.mjs');
      writeFileSync(
        program,
        [
          "import { trace } from '@opentelemetry/api';",
          "import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';",
          "import { ContextEngine } from '@zerda/context';",
          'const exporter = new InMemorySpanExporter();',
          'trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));',
          'const engine = new ContextEngine();',
          "await engine.index([{ docId: 'a', source: 'a.md', text: 'تفتح المكتبة من الساعة التاسعة صباحًا.' }]);",
          "await engine.run('متى تفتح المكتبة؟');",
          'const names = exporter.getFinishedSpans().map((span) => span.name);',
          "if (!names.includes('retrieval') || !names.includes('zerda.compose')) throw new Error('spans: ' + names.join(', '));",
          "console.log('otel ok: ' + names.length + ' spans');",
        ].join('\n'),
      );
      expect(expectOk(run(process.execPath, [program], folder), 'OpenTelemetry')).toMatch(/otel ok: \d+ spans/);
    });
  });
}

describe('npx @zerda/cli in an empty folder (the README first command, npm)', () => {
  it('fetches the CLI from the registry and answers', (context) => {
    if (skipReason) return context.skip(skipReason);
    const folder = join(work, 'npx-only');
    mkdirSync(join(folder, 'docs'), { recursive: true });
    for (const [name, text] of Object.entries(CORPUS)) writeFileSync(join(folder, 'docs', name), text);
    const env = { npm_config_registry: registry!.url, npm_config_cache: join(work, 'cache-npm'), npm_config_yes: 'true', npm_config_update_notifier: 'false' };
    expectOk(run('npx', ['@zerda/cli', 'index', './docs'], folder, env), 'npx @zerda/cli index ./docs');
    expect(existsSync(join(folder, '.zerda'))).toBe(true);
    const output = expectOk(run('npx', ['@zerda/cli', 'query', 'ما هي ساعات عمل المكتبة؟'], folder, env), 'npx @zerda/cli query');
    expect(output).toContain('التاسعة صباحًا');
  }, 600_000);
});

// The main process's code as one ES module (main/dist/<name>.mjs), built by esbuild
// from the TypeScript sources whenever one of them is newer than the bundle, so
// `solardesk` still needs no build step after an edit. Loading ~340 TypeScript
// files one by one through tsx's loader hooks took about 2 s of every start (each
// file a round trip to the hooks' thread, a transform and a source map); the bundle
// loads as one file per command (docs/benchmarks.md, "The first screen"). The
// packages it uses go into the bundle too, except those that must stay files of
// their own (KEPT_AS_PACKAGES). Plain JavaScript: it runs before any TypeScript can.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const mainFolder = path.dirname(fileURLToPath(import.meta.url));
const outputFolder = path.join(mainFolder, 'dist');

/**
 * What the bundle can start, built together so they share their chunks: the command
 * line, and the thread that serves `solardesk web`'s page (main/web/bridge-thread.ts).
 */
const ENTRIES = ['cli.ts', 'web/bridge-worker.ts'];
/** The record of the last build (isStale): where, from what, and what it wrote. */
const RECORD_FILE = path.join(outputFolder, 'build.json');

const repoRoot = path.join(mainFolder, '..');

/**
 * Packages Node loads from node_modules as usual: native addons (better-sqlite3,
 * sharp, canvas), packages that read their own data files at run time or load only
 * for some requests (pdfkit and its fonts, pdf.js, the S3 client, pg, exifr), the
 * desktop's own (electron, electron-store), and the build tools.
 */
const KEPT_AS_PACKAGES = [
  'better-sqlite3',
  'sharp',
  '@napi-rs/canvas',
  'pdfkit',
  'pdfjs-dist',
  'dejavu-fonts-ttf',
  'pg',
  'exifr',
  '@aws-sdk/*',
  'electron',
  'electron-store',
  'esbuild',
  'tsx',
  'vite',
];

/**
 * Each file keeps its own location inside the bundle: our code finds its workers
 * and package files relative to where it is written (`new URL('./design-worker-entry.js',
 * import.meta.url)`), and packages read their own files (`__dirname`), not the chunk's.
 * The bundle records the folder it was built in and is rebuilt if that moves.
 */
const ownLocation = {
  name: 'own-location',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
      const source = await fs.promises.readFile(args.path, 'utf8');
      const loader = args.path.endsWith('.ts') ? 'ts' : 'js';
      let contents = source;
      if (contents.includes('import.meta.url')) contents = contents.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      // A CommonJS package's own __dirname and __filename (an ES module that uses them declares them itself).
      const usesNodeLocals = /\b__(dirname|filename)\b/.test(contents) && !/\b(const|let|var|function)\s+__(dirname|filename)\b/.test(contents);
      if (loader === 'js' && usesNodeLocals) {
        contents = `var __dirname = ${JSON.stringify(path.dirname(args.path))}, __filename = ${JSON.stringify(args.path)};\n${contents}`;
      }
      return { contents, loader };
    });
  },
};

/** What the last build recorded: the folder it was built in and its source files; null when there is none. */
function readBuildRecord(recordFile) {
  try {
    return JSON.parse(fs.readFileSync(recordFile, 'utf8'));
  } catch {
    return null;
  }
}

/** Whether the bundle is missing, was built elsewhere, or any file it was built from changed or went away since. */
export function isStale(bundleFile, recordFile) {
  const record = readBuildRecord(recordFile);
  if (record?.root !== repoRoot || !Array.isArray(record.inputs)) return true;
  const builtAt = fs.statSync(bundleFile, { throwIfNoEntry: false })?.mtimeMs;
  if (builtAt === undefined) return true;
  for (const input of record.inputs) {
    const modified = fs.statSync(path.join(repoRoot, input), { throwIfNoEntry: false })?.mtimeMs;
    if (modified === undefined || modified > builtAt) return true;
  }
  // Its chunks too: another build removes chunks it did not write once they are a day old.
  return (record.outputs ?? []).some((output) => !fs.existsSync(path.join(path.dirname(recordFile), output)));
}

/** Writes a file whole or not at all: several processes may build at once (tests, the agent beside the app). */
function writeAtomically(file, contents) {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
}

/** What npm writes into node_modules at each install: a bundle built before it has packages of before. */
const INSTALL_RECORD = 'node_modules/.package-lock.json';

/** A day: a process started before a rebuild may still load its chunks on demand. */
const OLD_CHUNK_MS = 24 * 60 * 60 * 1000;

/** The bundle file an entry (a TypeScript file under main/) is built to. */
const bundleFileOf = (entry) => path.join(outputFolder, `${path.basename(entry, '.ts')}.mjs`);

async function build(recordFile) {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: ENTRIES.map((entry) => path.join(mainFolder, entry)),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: KEPT_AS_PACKAGES,
    // What a bundled package requires at run time (a package kept as a file, a name it computes).
    banner: { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" },
    // What a command imports with `await import()` is its own chunk, loaded only when
    // needed: `solardesk web` listens before it loads the engine (web-command.ts).
    splitting: true,
    outdir: outputFolder,
    entryNames: '[name]',
    outExtension: { '.js': '.mjs' },
    // Content-named, so a chunk file never changes once written.
    chunkNames: 'chunks/[name]-[hash]',
    // Class and function names stay as written: errors and logs name them.
    keepNames: true,
    // For `node --enable-source-maps` when a stack trace should name the TypeScript lines.
    sourcemap: 'linked',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [ownLocation],
  });
  fs.mkdirSync(path.join(outputFolder, 'chunks'), { recursive: true });
  const written = new Set();
  // Chunks first, the entries after them, and last the record that says the build is complete.
  const entryFiles = ENTRIES.map(bundleFileOf);
  const isEntryFile = (output) => entryFiles.some((file) => output.path.startsWith(file));
  const inOrder = [...result.outputFiles].sort((a, b) => Number(isEntryFile(a)) - Number(isEntryFile(b)));
  for (const output of inOrder) {
    writeAtomically(output.path, output.contents);
    written.add(output.path);
  }
  const inputs = Object.keys(result.metafile.inputs).map((input) => path.relative(repoRoot, path.resolve(input)));
  // npm may keep a package's files' own times, so an upgraded package's files can look
  // older than the bundle; npm rewrites this file at every install that changes node_modules.
  if (fs.existsSync(path.join(repoRoot, INSTALL_RECORD))) inputs.push(INSTALL_RECORD);
  // And how it is built: this file.
  inputs.push(path.relative(repoRoot, fileURLToPath(import.meta.url)));
  const outputs = [...written].map((file) => path.relative(path.dirname(recordFile), file));
  writeAtomically(recordFile, JSON.stringify({ root: repoRoot, inputs, outputs }));
  const chunksFolder = path.join(outputFolder, 'chunks');
  for (const name of fs.readdirSync(chunksFolder)) {
    const file = path.join(chunksFolder, name);
    const modified = fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    if (!written.has(file) && modified !== undefined && Date.now() - modified > OLD_CHUNK_MS) fs.rmSync(file, { force: true });
  }
}

/**
 * Imports `entry` (a TypeScript file under main/, e.g. 'cli.ts') from its bundle,
 * building the bundle first when it is missing or older than its sources. Where
 * the bundle cannot be built or written (a read-only install), or with
 * SOLARDESK_NO_BUNDLE=1 (to debug the sources as they are), the sources run
 * through tsx as they always could.
 */
export async function importMain(entry) {
  if (!ENTRIES.includes(entry)) throw new Error(`${entry} is not one of the bundle's entries (ENTRIES in main/main-bundle.js).`);
  const bundleFile = bundleFileOf(entry);
  if (process.env.SOLARDESK_NO_BUNDLE !== '1' && (await bundleReady(bundleFile, RECORD_FILE))) {
    return import(pathToFileURL(bundleFile).href);
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(path.join(mainFolder, entry)).href);
}

/** Builds the bundle if it is stale; false, having said why, when it cannot be built. */
async function bundleReady(bundleFile, recordFile) {
  try {
    if (isStale(bundleFile, recordFile)) {
      // Said to a person at a terminal (a pause of about two seconds); scripts and tests read stderr as the command's own.
      if (process.stderr.isTTY) console.error(`SolarDesk: building ${path.relative(process.cwd(), outputFolder) || 'main/dist'} from the sources, once after each change…`);
      fs.mkdirSync(outputFolder, { recursive: true });
      await build(recordFile);
    }
    return true;
  } catch (error) {
    console.error(`SolarDesk: could not build ${path.relative(process.cwd(), bundleFile)} (${error.message}); running the sources through tsx instead.`);
    return false;
  }
}

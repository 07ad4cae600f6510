// The built renderer (renderer/dist) as both hosts serve it: browser mode over
// HTTP, the desktop over its app:// protocol. Also the Content-Security-Policy
// both send with it, and the builds that `npm start` runs when one is missing or
// older than its sources (the renderer; the preload for the desktop), so a
// newcomer needs only `npm install && npm start`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const rendererDist = path.join(repoRoot, 'renderer/dist');
export const preloadBundle = path.join(repoRoot, 'preload/dist/preload.cjs');

/**
 * Scripts, styles, images and connections only from the app itself; no inline
 * script, no eval, no plugins, no framing, no form posts elsewhere. `blob:` for
 * images and workers lets three.js and the file previews work; `data:` images
 * cover small inline icons.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
};

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file a URL path names inside the dist folder, or null. "/" is index.html;
 * anything that would leave the folder (.., encoded slashes, NUL) is null.
 */
export function resolveRendererFile(distDir: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0]!.split('#')[0]!);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const relative = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '');
  const resolved = path.resolve(distDir, relative);
  if (!resolved.startsWith(path.resolve(distDir) + path.sep)) return null;
  try {
    return fs.statSync(resolved).isFile() ? resolved : null;
  } catch {
    return null;
  }
}

function newestModification(folder: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules' || entry.name.endsWith('.test.ts')) continue;
    const full = path.join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestModification(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Whether a build output is missing or older than any of the source folders it is built from. */
export function isBuildStale(output: string, sourceFolders: readonly string[]): boolean {
  if (!fs.existsSync(output)) return true;
  const builtAt = fs.statSync(output).mtimeMs;
  return sourceFolders.some((folder) => newestModification(path.join(repoRoot, folder)) > builtAt);
}

async function buildWithVite(configFile: string): Promise<void> {
  const { build } = await import('vite');
  await build({ configFile: path.join(repoRoot, configFile), logLevel: 'warn' });
}

const say = (line: string) => console.error(line);

/** Builds the renderer with Vite (a dev dependency) when needed; says so on stderr. */
export async function ensureRendererBuilt(): Promise<void> {
  if (!isBuildStale(path.join(rendererDist, 'index.html'), ['renderer', 'shared'])) return;
  say('SolarDesk: building the renderer (renderer/dist), once after each change…');
  await buildWithVite('renderer/vite.config.ts');
}

/** The renderer and the preload bundle the Electron window loads. */
export async function ensureDesktopBuilt(): Promise<void> {
  await ensureRendererBuilt();
  if (!isBuildStale(preloadBundle, ['preload', 'shared'])) return;
  say('SolarDesk: building the preload (preload/dist)…');
  await buildWithVite('preload/vite.config.ts');
}

/// <reference types="vitest/config" />
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/**
 * Makes `outDir` hold exactly `files` (path relative to it → bytes), writing
 * only the files whose bytes differ and removing the ones not in `files`: an
 * unchanged file keeps its modification time.
 */
export function writeChanged(outDir: string, files: Map<string, Uint8Array>): void {
  for (const [name, bytes] of files) {
    const path = join(outDir, name);
    if (!existsSync(path) || !readFileSync(path).equals(bytes)) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, bytes);
    }
  }
  for (const name of filesUnder(outDir)) {
    if (!files.has(name)) rmSync(join(outDir, name));
  }
}

/**
 * Writes the build with `writeChanged` instead of Vite. The app embeds ui/dist
 * when it compiles, and cargo compiles it again when a file there is newer: a
 * rebuild of the same sources (Tauri's beforeBuildCommand, then the bench's)
 * no longer costs an app compile.
 */
function keepUnchanged(): Plugin {
  let outDir = '';
  return {
    name: 'rxdesk-keep-unchanged',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    generateBundle: {
      // After Vite's own generateBundle hooks, which still rewrite chunks
      // (the preload markers of dynamic imports).
      order: 'post',
      handler(_options, bundle) {
        const files = new Map<string, Uint8Array>();
        for (const [name, item] of Object.entries(bundle)) {
          files.set(name, Buffer.from(item.type === 'chunk' ? item.code : item.source));
          // Written here, so not by Vite.
          delete bundle[name];
        }
        writeChanged(outDir, files);
      },
    },
  };
}

// The app is served to the webview from ui/dist by Tauri; in dev, from this server.
export default defineConfig({
  plugins: [svelte(), keepUnchanged()],
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: {
    target: 'es2022',
    outDir: 'dist',
    // keepUnchanged() writes the directory and removes what is no longer built.
    emptyOutDir: false,
    // No inline scripts: the CSP is script-src 'self'.
    modulePreload: { polyfill: false },
  },
  resolve: process.env.VITEST ? { conditions: ['browser'] } : undefined,
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
  },
});

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';

// A page's script (a TypeScript entry with its dependencies, bundled by esbuild) and stylesheet,
// built once per process on first use and served under names that carry their content hash, so
// browsers may keep them for a year and a new build is a new name. Nothing comes from a CDN.

export type BundledAsset = { name: string; type: string; body: Buffer };
export type BundledAssets = { script: BundledAsset; style: BundledAsset; byName: Map<string, BundledAsset> };

/** Browsers a few years old (phones too): no syntax newer than they read. */
const TARGET = ['es2020', 'chrome87', 'safari15', 'firefox91'];

function asset(base: string, extension: string, type: string, body: Buffer): BundledAsset {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12);
  return { name: `${base}.${hash}.${extension}`, type, body };
}

async function buildAssets(base: string, entry: string, stylesheet: string): Promise<BundledAssets> {
  const bundled = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: TARGET,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const script = asset(base, 'js', 'text/javascript; charset=utf-8', Buffer.from(bundled.outputFiles[0].contents));
  const style = asset(base, 'css', 'text/css; charset=utf-8', await readFile(stylesheet));
  return { script, style, byName: new Map([script, style].map((a) => [a.name, a])) };
}

/** The assets of one page, built by the first call (about a tenth of a second); a failed build is tried again. */
export function bundledAssets(base: string, entry: string, stylesheet: string): () => Promise<BundledAssets> {
  let built: Promise<BundledAssets> | null = null;
  return () => {
    built ??= buildAssets(base, entry, stylesheet).catch((err: unknown) => {
      built = null;
      throw err;
    });
    return built;
  };
}

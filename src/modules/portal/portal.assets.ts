import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

// The portal's script (portal.client.ts with tus-js-client, bundled by esbuild) and stylesheet, built
// once per process on first use and served under names that carry their content hash, so browsers may
// keep them for a year and a new build is a new name.

export type PortalAsset = { name: string; type: string; body: Buffer };
export type PortalAssets = { script: PortalAsset; style: PortalAsset; byName: Map<string, PortalAsset> };

export const ASSET_PREFIX = '/r/assets/';

function asset(base: string, extension: string, type: string, body: Buffer): PortalAsset {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12);
  return { name: `${base}.${hash}.${extension}`, type, body };
}

async function buildAssets(): Promise<PortalAssets> {
  const bundled = await build({
    entryPoints: [join(__dirname, 'portal.client.ts')],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    platform: 'browser',
    // Phones a few years old: no syntax newer than their browsers read.
    target: ['es2020', 'chrome87', 'safari15', 'firefox91'],
    legalComments: 'none',
    logLevel: 'silent',
  });
  const script = asset('portal', 'js', 'text/javascript; charset=utf-8', Buffer.from(bundled.outputFiles[0].contents));
  const style = asset('portal', 'css', 'text/css; charset=utf-8', await readFile(join(__dirname, 'portal.page.css')));
  return { script, style, byName: new Map([script, style].map((a) => [a.name, a])) };
}

let built: Promise<PortalAssets> | null = null;

/** The built assets (the first call builds them: about a tenth of a second). */
export function portalAssets(): Promise<PortalAssets> {
  built ??= buildAssets().catch((err: unknown) => {
    // A failed build is tried again by the next page view rather than remembered.
    built = null;
    throw err;
  });
  return built;
}

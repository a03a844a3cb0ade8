import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';
import type { FastifyInstance, FastifyReply } from 'fastify';

// A page's script (a TypeScript entry with its dependencies, bundled by esbuild) and stylesheet,
// built once per process on first use and served under names that carry their content hash, so
// browsers may keep them for a year and a new build is a new name. Nothing comes from a CDN.

export type BundledAsset = { name: string; type: string; body: Buffer };
export type BundledAssets = {
  script: BundledAsset;
  style: BundledAsset;
  /** Files served as they are (a library's worker script), by the base name they were given. */
  files: Record<string, BundledAsset>;
  byName: Map<string, BundledAsset>;
};

/** Browsers a few years old (phones too): no syntax newer than they read. */
const TARGET = ['es2020', 'chrome87', 'safari15', 'firefox91'];

function asset(base: string, extension: string, type: string, body: Buffer): BundledAsset {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12);
  return { name: `${base}.${hash}.${extension}`, type, body };
}

async function buildAssets(
  base: string,
  entry: string,
  stylesheets: readonly string[],
  files: Readonly<Record<string, string>>,
): Promise<BundledAssets> {
  const bundled = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: TARGET,
    // A .tsx entry (the console) is React with the automatic runtime, in React's production build.
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    logLevel: 'silent',
  });
  const script = asset(base, 'js', 'text/javascript; charset=utf-8', Buffer.from(bundled.outputFiles[0].contents));
  const css = await Promise.all(stylesheets.map((path) => readFile(path)));
  const style = asset(base, 'css', 'text/css; charset=utf-8', Buffer.concat(css));
  const served: Record<string, BundledAsset> = {};
  for (const [name, path] of Object.entries(files))
    served[name] = asset(name, path.split('.').pop()!, 'text/javascript; charset=utf-8', await readFile(path));
  const all = [script, style, ...Object.values(served)];
  return { script, style, files: served, byName: new Map(all.map((a) => [a.name, a])) };
}

/**
 * The assets of one page, built by the first call (about a tenth of a second; half a second with React);
 * a failed build is tried again. Several stylesheets are served as one, in order: a page may build on
 * another's styles. `files` (name to path) are scripts served unbundled beside it, such as a worker.
 */
export function bundledAssets(
  base: string,
  entry: string,
  stylesheet: string | readonly string[],
  files: Readonly<Record<string, string>> = {},
): () => Promise<BundledAssets> {
  const stylesheets = typeof stylesheet === 'string' ? [stylesheet] : stylesheet;
  let built: Promise<BundledAssets> | null = null;
  return () => {
    built ??= buildAssets(base, entry, stylesheets, files).catch((err: unknown) => {
      built = null;
      throw err;
    });
    return built;
  };
}

const YEAR_SECONDS = 365 * 24 * 3600;

/** `GET <prefix>:name`: a page's built assets, public (they hold no data), kept a year by browsers (hashed names). */
export function serveBundledAssets(scope: FastifyInstance, prefix: string, assets: () => Promise<BundledAssets>): void {
  scope.get<{ Params: { name: string } }>(`${prefix}:name`, { config: { public: true } }, async (request, reply) => {
    const asset = (await assets()).byName.get(request.params.name);
    if (!asset) return reply.code(404).send({ detail: 'Not found' });
    return reply
      .header('content-type', asset.type)
      .header('cache-control', `public, max-age=${YEAR_SECONDS}, immutable`)
      .header('x-content-type-options', 'nosniff')
      .send(asset.body);
  });
}

/** A page's HTML shell: never cached (its asset names change with each build), under its own policy. */
export function sendPage(reply: FastifyReply, csp: string, html: string): FastifyReply {
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', csp)
    .header('x-content-type-options', 'nosniff')
    .send(html);
}

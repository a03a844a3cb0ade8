import { join } from 'node:path';
import { bundledAssets, type BundledAsset, type BundledAssets } from '../../kernel/http/bundle';

// The portal's script (src/web/portal/portal.client.ts with tus-js-client) and stylesheet (kernel/http/bundle.ts).

export type PortalAsset = BundledAsset;
export type PortalAssets = BundledAssets;

export const ASSET_PREFIX = '/r/assets/';

/** The built assets (the first call builds them). */
export const portalAssets = bundledAssets(
  'portal',
  join(__dirname, '../../web/portal/portal.client.ts'),
  join(__dirname, '../../web/portal/portal.page.css'),
);

export const SIGNING_ASSET_PREFIX = '/r/signing/assets/';

/**
 * The signing view's script (src/web/portal/signing.client.ts with pdf.js) and pdf.js's worker, apart from the
 * portal's script: the portal script loads it only where a contract is to be signed, so other pages stay light.
 */
export const signingAssets = bundledAssets('signing', join(__dirname, '../../web/portal/signing.client.ts'), [], {
  'pdf.worker': require.resolve('pdfjs-dist/build/pdf.worker.min.mjs'),
});

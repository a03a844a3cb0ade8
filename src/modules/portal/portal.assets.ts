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

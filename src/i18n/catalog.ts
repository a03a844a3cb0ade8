// The shape of a catalog (English's is the reference), for the server and the portal's browser script alike:
// types only, so a page's script that names them loads no catalog.

export type Catalog = typeof import('./catalogs/en-US.json');
export type Namespace = Exclude<keyof Catalog, 'default'>;
export type MessageKey = { [N in Namespace]: `${N}.${keyof Catalog[N] & string}` }[Namespace];
export type PortalTexts = Catalog['portal'];
export type PortalTextKey = keyof PortalTexts;

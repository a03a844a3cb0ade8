import { client } from '../support/app';
import { openContext, screenshot } from './support/browser';
import { createPortalRequest } from './support/recipient';
import { useAppAndBrowser } from './support/server';

// The portal's pages that need no sign-in: a link that leads nowhere, a closed request, a request in
// Spanish whose recipient signs in with nothing, and the assets and headers every page carries.

describe('portal pages', () => {
  const world = useAppAndBrowser();

  it('should answer an unknown link with a 404 page in the browser language', async () => {
    const { context, outside } = await openContext(world.browser, world.app.origin, { locale: 'es-ES' });
    const page = await context.newPage();
    const response = await page.goto(`${world.app.origin}/r/not-a-token-at-all`);
    expect(response!.status()).toBe(404);
    await expect(page.locator('h1').textContent()).resolves.toBe('Enlace no encontrado');
    await screenshot(page, 'pages-01-not-found-es');
    expect(outside).toEqual([]);
    await context.close();
  });

  it('should show a Spanish request to a recipient without sign-in, fitting a 360 px screen', async () => {
    const created = await createPortalRequest(world.app, {
      name: 'Documentos para la declaración',
      language: 'es',
      personal_message: 'Hola, necesitamos estos documentos antes del viernes.',
      due_date: '2027-01-15T17:00:00Z',
      items: [
        { name: 'DNI (ambas caras)', type: 'UPLOAD', required: true },
        { name: '¿Tiene hijos a su cargo?', type: 'QUESTION', required: false },
      ],
      recipients: [{ first_name: 'Lucía', email: 'lucia@example.com', auth_method: { type: 'NONE' } }],
    });
    const { context, outside } = await openContext(world.browser, world.app.origin);
    const page = await context.newPage();
    const response = await page.goto(created.recipients[0].request_link);
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-security-policy']).toContain("default-src 'none'");
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('es');
    await expect(page.locator('#checklist-title').textContent()).resolves.toMatch(/^Lo que .* le pide$/);
    await expect(page.locator('#progress').textContent()).resolves.toBe('0 de 2 completados');
    await expect(page.locator('.due').textContent()).resolves.toBe('Fecha límite: 15 de enero de 2027');
    expect(await page.getByText('Esto no me corresponde').count()).toBe(1);
    // Nothing wider than the screen: no sideways scrolling on a phone.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await screenshot(page, 'pages-02-spanish-request');

    const script = await page.locator('script[src]').getAttribute('src');
    const asset = await page.request.get(`${world.app.origin}${script}`);
    expect(asset.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(outside).toEqual([]);
    await context.close();
  });

  it('should answer the link of a closed request with a 410 page that says so', async () => {
    const created = await createPortalRequest(world.app, {
      name: 'Closed one',
      items: [{ name: 'W-2', type: 'UPLOAD' }],
      recipients: [{ email: 'closed@example.com', auth_method: { type: 'NONE' } }],
    });
    const closed = await client(world.app.app, world.app.tenant.apiKey).post(`/requests/${created.id}/close`);
    expect(closed.statusCode).toBe(200);
    const { context } = await openContext(world.browser, world.app.origin);
    const page = await context.newPage();
    const response = await page.goto(created.recipients[0].request_link);
    expect(response!.status()).toBe(410);
    await expect(page.locator('h1').textContent()).resolves.toBe('This request is closed');
    await screenshot(page, 'pages-03-closed');
    await context.close();
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { t } from '../../src/i18n/i18n';
import { client } from '../support/app';
import { pdfBytes } from '../support/files';
import { pngBytes } from '../support/png';
import { openContext, screenshot } from './support/browser';
import { createPortalRequest } from './support/recipient';
import { useAppAndBrowser } from './support/server';

// An item that says what it takes, as a French recipient reads it on a phone: its rules before the upload, and a
// file that breaks one refused by the page before a byte is sent; what fits goes up.

describe('the portal and an item’s upload rules', () => {
  const world = useAppAndBrowser();

  it('should say what the item takes, and refuse a wrong type, a file too large and one file too many in the browser', async () => {
    const created = await createPortalRequest(world.app, {
      name: 'Relevés 2026',
      language: 'fr',
      items: [
        {
          name: 'Relevé bancaire',
          type: 'UPLOAD',
          required: true,
          upload_rules: { accept: ['.pdf'], max_file_bytes: 200_000, max_files: 1 },
        },
      ],
      recipients: [{ first_name: 'Ana', email: 'ana.rules@example.com', auth_method: { type: 'NONE' } }],
    });
    const itemId = created.items[0].id;
    const { context, outside } = await openContext(world.browser, world.app.origin);
    const page = await context.newPage();
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET' && /\/api\/(uploads|items)/.test(request.url())) sent.push(request.url());
    });
    expect((await page.goto(created.recipients[0].request_link))!.status()).toBe(200);

    const hint = (await page.locator(`#file-hint-${itemId}`).textContent()) ?? '';
    expect(hint).toContain(t('fr', 'portal.acceptTypes', { types: 'PDF' }));
    // One file at most: said once, and the browser's picker takes one.
    expect(hint).toMatch(/^Un seul fichier, jusqu’à /);
    expect(hint).not.toContain(t('fr', 'portal.acceptFilesAtMost', { max: 1 }));
    await expect(page.locator(`#file-${itemId}`).getAttribute('multiple')).resolves.toBeNull();

    const files = mkdtempSync(join(tmpdir(), 'gather-e2e-'));
    const place = (name: string, bytes: Buffer) => {
      const path = join(files, name);
      writeFileSync(path, bytes);
      return path;
    };
    const input = page.locator(`#file-${itemId}`);
    const row = page.locator(`#uploads-${itemId} li`).last();

    await input.setInputFiles(place('photo.png', pngBytes(4, 4)));
    await expect(row.textContent()).resolves.toBe(
      t('fr', 'portal.fileTypeRefused', { name: 'photo.png', types: 'PDF' }),
    );
    await input.setInputFiles(place('gros.pdf', Buffer.concat([await pdfBytes('Gros'), Buffer.alloc(300_000)])));
    await expect(row.textContent()).resolves.toMatch(/^gros\.pdf dépasse \d/);
    expect(sent).toEqual([]);
    await page.setViewportSize({ width: 360, height: 740 });
    await screenshot(page, 'upload-rules-fr-refused-360');

    await input.setInputFiles(place('releve.pdf', await pdfBytes('Relevé')));
    await page.locator(`#item-${itemId}[data-status="COMPLETE"]`).waitFor({ timeout: 30_000 });
    expect(sent.length).toBeGreaterThan(0);
    sent.length = 0;
    await input.setInputFiles(place('releve-2.pdf', await pdfBytes('Relevé 2')));
    await expect(page.locator(`#uploads-${itemId} li`).last().textContent()).resolves.toBe(
      t('fr', 'portal.tooManyFiles', { name: 'releve-2.pdf', max: 1 }),
    );
    expect(sent).toEqual([]);
    await screenshot(page, 'upload-rules-fr-one-too-many-360');

    const documents = await client(world.app.app, world.app.tenant.apiKey).get(
      `/requests/${created.id}/items/${itemId}/documents`,
    );
    expect((documents.json() as { name: string }[]).map((doc) => doc.name)).toEqual(['releve.pdf']);
    expect(outside).toEqual([]);
    await context.close();
  });
});

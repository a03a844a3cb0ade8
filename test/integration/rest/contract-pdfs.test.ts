import { PDFDocument } from 'pdf-lib';
import {
  MAX_CONTRACT_INFLATED_BYTES,
  MAX_CONTRACT_OBJECT_STREAM_BYTES,
  MAX_CONTRACT_OBJECTS,
} from '../../../src/modules/contracts/contract.limits';
import { client, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { replaceContractBytes, storedObjects } from '../../support/documents';
import { upload } from '../../support/files';
import { contentStreamBomb, indirectFilterBomb, manyObjects, objectStreamBomb } from '../../support/pdf-bombs';

// Contract PDFs are read in worker threads, within limits: a compressed-PDF bomb is refused at upload, and
// reading a large PDF leaves the event loop to every other request.

describe('contract PDFs', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp());
  });
  afterAll(() => t.close());

  const rows = async () => {
    const [{ files, contracts }] = await t.orm.em
      .fork()
      .getConnection()
      .execute(
        'select (select count(*)::int from stored_file) as files, (select count(*)::int from contract) as contracts',
      );
    return { files, contracts, objects: storedObjects(t).length };
  };

  describe('POST /contracts', () => {
    it.each([
      [
        'an object stream that inflates past the limit',
        () => objectStreamBomb(2 * MAX_CONTRACT_OBJECT_STREAM_BYTES),
        "The PDF's object and cross-reference streams decode to more than 32 MiB",
        'too_long',
      ],
      [
        'an object stream whose filter is named in another object stream',
        () => indirectFilterBomb(2 * MAX_CONTRACT_OBJECT_STREAM_BYTES),
        "The PDF's object and cross-reference streams decode to more than 32 MiB",
        'too_long',
      ],
      [
        'streams that inflate past the limit (compressed twice)',
        () => contentStreamBomb(MAX_CONTRACT_INFLATED_BYTES + 2 ** 20),
        "The PDF's streams decode to more than 512 MiB",
        'too_long',
      ],
      [
        'more objects than the limit',
        () => manyObjects(MAX_CONTRACT_OBJECTS),
        'The PDF holds more than 100,000 objects',
        'too_many',
      ],
    ])('should refuse a PDF with %s, with 422, storing nothing', async (_what, build, msg, type) => {
      const before = await rows();
      const bomb = await build();
      expect(bomb.length).toBeLessThan(3 * 2 ** 20);
      const response = await upload(t.app, tenant.apiKey, '/contracts', bomb, { filename: 'bomb.pdf' });
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({ detail: [{ loc: ['body', 'file'], msg, type }] });
      expect(await rows()).toEqual(before);
    });

    it('should take a PDF just within the limits', async () => {
      const response = await upload(
        t.app,
        tenant.apiKey,
        '/contracts',
        await objectStreamBomb(MAX_CONTRACT_OBJECT_STREAM_BYTES - 2 ** 20),
        { filename: 'large.pdf' },
      );
      expect(response.statusCode).toBe(200);
    });
  });

  describe('PDFs stored before the limits', () => {
    /** A contract whose stored bytes are replaced, as a file uploaded before the check would be. */
    async function storedContract(bytes: Buffer): Promise<string> {
      const response = await upload(t.app, tenant.apiKey, '/contracts', await manyObjects(1), { filename: 'old.pdf' });
      await replaceContractBytes(t, response.json().id, bytes);
      return response.json().id;
    }

    it('should refuse to preview a bomb, with 422', async () => {
      const id = await storedContract(await objectStreamBomb(2 * MAX_CONTRACT_OBJECT_STREAM_BYTES));
      const response = await api.get(`/contracts/${id}/preview`);
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({
        detail: [
          {
            loc: ['body'],
            msg: "The PDF's object and cross-reference streams decode to more than 32 MiB",
            type: 'too_long',
          },
        ],
      });
    });

    it('should answer /healthz at once while a large PDF is previewed', async () => {
      const id = await storedContract(await objectStreamBomb(MAX_CONTRACT_OBJECT_STREAM_BYTES - 2 ** 20));
      const started = Date.now();
      let previewed = false;
      const preview = api.get(`/contracts/${id}/preview`).finally(() => (previewed = true));
      // The waits between two answers: an event loop held by the preview shows as long ones.
      const gaps: number[] = [];
      for (let last = Date.now(); !previewed; last = Date.now()) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
        gaps.push(Date.now() - last);
      }
      const response = await preview;
      const took = Date.now() - started;
      expect(response.statusCode).toBe(200);
      expect((await PDFDocument.load(response.rawPayload)).getPageCount()).toBe(1);
      const held = gaps.filter((gap) => gap > 100).reduce((sum, gap) => sum + gap, 0);
      expect(held).toBeLessThan(took / 4);
      expect(gaps.length).toBeGreaterThan(10);
    });
  });
});

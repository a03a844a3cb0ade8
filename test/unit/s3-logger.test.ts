import { PutObjectCommand } from '@aws-sdk/client-s3';
import { createServer, type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createS3Client } from '../../src/kernel/storage/s3';

// The SDK writes some warnings to the console when a client has no logger of its own (a failed
// streaming upload, for one): every client the service makes sends them to its log, at debug level.

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the S3 client log', () => {
  it("should send the SDK's warning about a failed streaming upload to the log at debug level, not to the console", async () => {
    const lines: Array<{ message: string; fields: object }> = [];
    const warn = jest.spyOn(console, 'warn');
    const client = createS3Client({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${await closedPort()}`,
      forcePathStyle: true,
      credentials: { accessKeyId: 'key', secretAccessKey: 'secret' },
      maxAttempts: 1,
      log: { debug: (fields: object, message: string) => lines.push({ message, fields }) } as never,
    });
    try {
      await expect(
        client.send(
          new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: Readable.from([Buffer.from('x')]), ContentLength: 1 }),
        ),
      ).rejects.toThrow();
    } finally {
      client.destroy();
      warn.mockRestore();
    }
    expect(warn).not.toHaveBeenCalled();
    expect(lines.map((line) => line.message)).toEqual([
      'AWS SDK: An error was encountered in a non-retryable streaming request.',
      'AWS SDK: S3Client PutObjectCommand failed',
    ]);
    // The command's input (object keys, bodies) stays out of the log.
    expect(JSON.stringify(lines)).not.toContain('"Key"');
  });
});

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as { __GATHER_PG__?: { stop(): Promise<void> } }).__GATHER_PG__;
  await server?.stop();
}

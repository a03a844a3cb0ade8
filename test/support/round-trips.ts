import { Client } from 'pg';

/**
 * What the process's pg connections are asked to send while `during` runs, one entry per round trip
 * (pg's `Client.query` calls: the text of each, or of the statement carrying others), every call
 * passed on as it came.
 */
export async function roundTrips<T>(during: () => Promise<T>): Promise<{ result: T; sent: string[] }> {
  const sent: string[] = [];
  const query = Client.prototype.query;
  Client.prototype.query = function (this: Client, config: unknown, ...rest: unknown[]) {
    // A pipeline's brackets ride beside its text (kernel/db/pipeline.ts).
    sent.push(typeof config === 'string' ? config : ((config as { text?: string }).text ?? ''));
    return (query as (...args: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof query;
  try {
    return { result: await during(), sent };
  } finally {
    Client.prototype.query = query;
  }
}

/** The first word of each text `roundTrips` saw, in lower case. */
export const firstWords = (sent: string[]) => sent.map((text) => text.split(/\s/)[0].toLowerCase());

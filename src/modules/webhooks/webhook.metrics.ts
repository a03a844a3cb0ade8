import { Counter } from 'prom-client';
import { databaseGauge, type MetricsSource } from '../../kernel/metrics/metrics';

/**
 * Webhook attempts by outcome (this instance's jobs), and the outbox: deliveries due and how late
 * the oldest of them is (every instance's, from the table they share).
 */
export const webhookMetrics: MetricsSource = ({ registry, app, db }) => {
  new Counter({
    name: 'gather_webhook_attempts_total',
    help: 'Webhook delivery attempts by this instance: succeeded, failed and retrying later, or failed for good (no retry left)',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [outcome, count] of Object.entries(app.webhookAttempts)) this.inc({ outcome }, count);
    },
  });
  const due = async () => {
    const [row] = await db.rows<{ due: number; lag: number | null }>(
      `select count(*)::int as due, extract(epoch from now() - min(next_attempt_at))::float8 as lag
         from webhook_delivery where status = 'PENDING' and next_attempt_at <= now()`,
    );
    return row;
  };
  databaseGauge(registry, {
    name: 'gather_webhook_deliveries_due',
    help: 'Webhook deliveries due now and not sent yet (all instances)',
    read: async () => [{ value: (await due()).due }],
  });
  databaseGauge(registry, {
    name: 'gather_webhook_outbox_lag_seconds',
    help: 'How long the oldest due webhook delivery has waited (0 when none waits)',
    read: async () => [{ value: (await due()).lag ?? 0 }],
  });
};
